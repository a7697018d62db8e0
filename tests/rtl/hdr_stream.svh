// A header, then its payload: the stream of the receive path's later stages
// (rnic_ud_grh, rnic_mcast_rep), driven and taken by their testbenches with
// random valid gaps and random ready. Included inside the testbench module,
// which declares clk, KW, HB, rnd(), fail(), the s_hdr*/s_t* inputs and
// m_hdr*/m_t* outputs of the block, and src_byte(i) / want_byte(i): the
// bytes the stream carries in and must carry out (tests/rtl/run_tb.sh puts
// this folder on the include path).

// Send header h, then len payload bytes from src_byte(base ..) as dense
// beats, tlast on the last.
task automatic hs_send(input logic [HB-1:0] h, input int base, input int len);
    int off, k;
    @(negedge clk);
    while (rnd() % 3 == 0) @(negedge clk);
    s_hdr = h;
    s_hdr_valid = 1'b1;
    #1;
    while (!s_hdr_ready) begin
        @(negedge clk);
        #1;
    end
    @(negedge clk);
    s_hdr_valid = 1'b0;
    off = 0;
    while (off < len) begin
        s_tvalid = 1'b0;
        while (rnd() % 4 == 0) @(negedge clk);
        k = len - off < KW ? len - off : KW;
        for (int i = 0; i < KW; i++) begin
            s_tdata[8*i +: 8] = i < k ? src_byte(base + off + i) : 8'hxx;
            s_tkeep[i] = i < k;
        end
        s_tlast = off + k == len;
        s_tvalid = 1'b1;
        #1;
        while (!s_tready) begin
            @(negedge clk);
            #1;
        end
        @(negedge clk);
        off += k;
    end
    s_tvalid = 1'b0;
endtask

// Take the next header (ready after random gaps) into h.
task automatic hs_take_hdr(output logic [HB-1:0] h);
    @(negedge clk);
    while (rnd() % 3 == 0) @(negedge clk);
    m_hdr_ready = 1'b1;
    #1;
    while (!m_hdr_valid) begin
        @(negedge clk);
        #1;
    end
    h = m_hdr;
endtask

// After hs_take_hdr: take its payload under random ready; it must be len
// dense bytes equal to want_byte(base ..), tlast on the last. tag names
// the packet in failures.
task automatic hs_take_pay(input int base, input int len, input string tag);
    int idx;
    @(negedge clk);
    m_hdr_ready = 1'b0;
    idx = 0;
    while (idx < len) begin
        m_tready = (rnd() % 4) != 0;
        #1;
        if (m_tvalid && m_tready) begin
            for (int i = 0; i < KW; i++) begin
                if (idx + i < len) begin
                    if (!m_tkeep[i]) fail($sformatf("%s: byte %0d missing (not dense)", tag, idx + i));
                    else if (m_tdata[8*i +: 8] !== want_byte(base + idx + i))
                        fail($sformatf("%s: byte %0d is %02x, want %02x", tag, idx + i, m_tdata[8*i +: 8],
                                       want_byte(base + idx + i)));
                end else if (m_tkeep[i]) begin
                    fail($sformatf("%s: bytes past its end", tag));
                end
            end
            idx += KW;
            if (m_tlast != (idx >= len)) fail($sformatf("%s: tlast at byte %0d", tag, idx));
        end
        @(negedge clk);
    end
    m_tready = 1'b0;
endtask
