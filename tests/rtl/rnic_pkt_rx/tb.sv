`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_pkt_rx testbench.
 *
 * Vectors (gen.py -> build/vectors/rnic_pkt_rx): every RoCEv2 frame of the
 * rxe captures and scapy-made IPv4/IPv6 frames of every RC opcode and
 * extension-header kind, with the header record and payload scapy decodes;
 * bad frames (TVer, non-RC opcodes, lengths) flagged.
 * 1. All frames, dense, with random idle cycles inside and between frames,
 *    random m_hdr_ready and m_axis_payload_tready. Checks: one header per
 *    frame, in order, equal to the expected record (bad frames: m_hdr_bad
 *    set, payload_len 0, fields not compared); payload bytes equal to the
 *    frame's payload, dense, tlast on the last byte, nothing for frames with
 *    no payload or bad; no payload beat of a frame before its header was
 *    accepted; the payload held stable while stalled.
 * 2. The same frames without gaps or back-pressure: the input may stall at
 *    most STALL_PER_FRAME cycles per frame.
 */
module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int MAXF = 2048;
    localparam int MAXB = 1 << 20;
    localparam int STALL_PER_FRAME = 4;   // record (two steps), hand-over, replay

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [DATA_WIDTH-1:0] s_axis_tdata = '0;
    logic [KW-1:0]         s_axis_tkeep = '0;
    logic                  s_axis_tvalid = 1'b0;
    logic                  s_axis_tready;
    logic                  s_axis_tlast = 1'b0;
    logic                  m_hdr_valid;
    logic                  m_hdr_ready = 1'b0;
    logic [HB-1:0]         m_hdr;
    logic                  m_hdr_bad;
    logic [DATA_WIDTH-1:0] m_axis_payload_tdata;
    logic [KW-1:0]         m_axis_payload_tkeep;
    logic                  m_axis_payload_tvalid;
    logic                  m_axis_payload_tready = 1'b0;
    logic                  m_axis_payload_tlast;

    rnic_pkt_rx #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
        .m_hdr_valid(m_hdr_valid), .m_hdr_ready(m_hdr_ready), .m_hdr(m_hdr), .m_hdr_bad(m_hdr_bad),
        .m_axis_payload_tdata(m_axis_payload_tdata), .m_axis_payload_tkeep(m_axis_payload_tkeep),
        .m_axis_payload_tvalid(m_axis_payload_tvalid), .m_axis_payload_tready(m_axis_payload_tready),
        .m_axis_payload_tlast(m_axis_payload_tlast)
    );

    integer seed = 1;
    integer errors = 0;
    logic   bp = 1'b1;

    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction

    task automatic fail(input string msg);
        if (errors < 20) $display("TB FAIL: %s (t=%0t)", msg, $time);
        errors = errors + 1;
    endtask

    logic [7:0]    data_mem [MAXB];
    logic [HB-1:0] rec_mem [MAXF];
    logic [95:0]   idx_mem [MAXF];
    integer        nfr;

    function automatic integer f_off(input integer f);
        f_off = idx_mem[f][31:0];
    endfunction
    function automatic integer f_len(input integer f);
        f_len = idx_mem[f][47:32];
    endfunction
    function automatic integer f_plen(input integer f);
        f_plen = idx_mem[f][63:48];
    endfunction
    function automatic integer f_poff(input integer f);
        f_poff = idx_mem[f][79:64];
    endfunction
    function automatic logic f_bad(input integer f);
        f_bad = idx_mem[f][80];
    endfunction

    // ---------------------------------------------------------------- driver
    integer stall_cycles = 0;

    task automatic send_frame(input integer f);
        integer len, off;
        len = f_len(f);
        off = f_off(f);
        for (int o = 0; o < len; o += KW) begin
            while (bp && rnd(6) == 0) begin
                s_axis_tvalid <= 1'b0;
                s_axis_tdata <= {DATA_WIDTH{1'bx}};
                @(posedge clk);
            end
            for (int i = 0; i < KW; i++) begin
                s_axis_tdata[8*i +: 8] <= (o + i < len) ? data_mem[off + o + i] : 8'hxx;
                s_axis_tkeep[i] <= o + i < len;
            end
            s_axis_tlast <= o + KW >= len;
            s_axis_tvalid <= 1'b1;
            @(posedge clk);
            while (!s_axis_tready) begin
                stall_cycles = stall_cycles + 1;
                @(posedge clk);
            end
        end
        s_axis_tvalid <= 1'b0;
    endtask

    always @(posedge clk) begin
        m_hdr_ready <= bp ? rnd(3) != 0 : 1'b1;
        m_axis_payload_tready <= bp ? rnd(4) != 0 : 1'b1;
    end

    // ---------------------------------------------------------------- monitors
    integer hdr_n = 0;      // headers accepted
    integer pay_f = 0;      // frame whose payload comes next
    integer pay_pos = 0;
    logic                  held = 1'b0;
    logic [DATA_WIDTH-1:0] held_data;
    logic [KW-1:0]         held_keep;
    logic                  held_last;

    // next frame with payload, from f on
    function automatic integer next_pay(input integer f);
        integer g;
        g = f;
        while (g < nfr && (f_bad(g) || f_plen(g) == 0)) g = g + 1;
        next_pay = g;
    endfunction

    always @(posedge clk) begin
        if (!rst) begin
            // payload first: a beat and the header of its frame in the same cycle is an error
            if (held && (!m_axis_payload_tvalid || m_axis_payload_tdata !== held_data ||
                         m_axis_payload_tkeep !== held_keep || m_axis_payload_tlast !== held_last)) begin
                fail("payload changed while stalled");
            end
            held = m_axis_payload_tvalid && !m_axis_payload_tready;
            held_data = m_axis_payload_tdata;
            held_keep = m_axis_payload_tkeep;
            held_last = m_axis_payload_tlast;
            if (m_axis_payload_tvalid && m_axis_payload_tready) begin
                pay_f = next_pay(pay_f);
                if (pay_f >= nfr) begin
                    fail("payload beat after the last frame with payload");
                end else begin
                    if (hdr_n <= pay_f) fail($sformatf("frame %0d: payload before its header", pay_f));
                    for (int i = 0; i < KW; i++) begin
                        if (m_axis_payload_tkeep[i]) begin
                            if (pay_pos >= f_plen(pay_f)) begin
                                fail($sformatf("frame %0d: payload longer than %0d", pay_f, f_plen(pay_f)));
                            end else if (m_axis_payload_tdata[8*i +: 8] !== data_mem[f_off(pay_f) + f_poff(pay_f) + pay_pos]) begin
                                fail($sformatf("frame %0d payload byte %0d: got %02x, expected %02x", pay_f, pay_pos,
                                               m_axis_payload_tdata[8*i +: 8],
                                               data_mem[f_off(pay_f) + f_poff(pay_f) + pay_pos]));
                            end
                            pay_pos = pay_pos + 1;
                        end else if (!m_axis_payload_tlast) begin
                            fail($sformatf("frame %0d: payload beat not full", pay_f));
                        end
                        if (i > 0 && m_axis_payload_tkeep[i] && !m_axis_payload_tkeep[i-1]) begin
                            fail($sformatf("frame %0d: payload tkeep not a run from lane 0", pay_f));
                        end
                    end
                    if (m_axis_payload_tlast) begin
                        if (pay_pos != f_plen(pay_f)) begin
                            fail($sformatf("frame %0d: payload %0d bytes, expected %0d", pay_f, pay_pos, f_plen(pay_f)));
                        end
                        pay_f = pay_f + 1;
                        pay_pos = 0;
                    end else if (pay_pos >= f_plen(pay_f)) begin
                        fail($sformatf("frame %0d: no tlast on the last payload byte", pay_f));
                    end
                end
            end
            if (m_hdr_valid && m_hdr_ready) begin
                if (hdr_n >= nfr) begin
                    fail("header after the last frame");
                end else begin
                    if (m_hdr_bad !== f_bad(hdr_n)) begin
                        fail($sformatf("frame %0d: bad %b, expected %b", hdr_n, m_hdr_bad, f_bad(hdr_n)));
                    end else if (!f_bad(hdr_n) && m_hdr !== rec_mem[hdr_n]) begin
                        fail($sformatf("frame %0d: header record differs", hdr_n));
                        for (int b = 0; b < HB; b++) begin
                            if (m_hdr[b] !== rec_mem[hdr_n][b]) $display("  record bit %0d: got %b", b, m_hdr[b]);
                        end
                    end else if (f_bad(hdr_n) &&
                                 m_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] !== '0) begin
                        fail($sformatf("frame %0d: bad header with a payload length", hdr_n));
                    end
                end
                hdr_n = hdr_n + 1;
            end
        end
    end

    // ---------------------------------------------------------------- main
    string  vecdir;
    integer n_bad, n_pay, cycles;

    task automatic run_phase(input logic backpressure, input string name);
        integer t0;
        bp = backpressure;
        hdr_n = 0;
        pay_f = 0;
        pay_pos = 0;
        stall_cycles = 0;
        t0 = $time;
        for (int f = 0; f < nfr; f++) send_frame(f);
        cycles = 0;
        while ((hdr_n < nfr || next_pay(pay_f) < nfr) && cycles < 100000) begin
            @(posedge clk);
            cycles = cycles + 1;
        end
        if (hdr_n != nfr) fail($sformatf("%s: %0d headers for %0d frames", name, hdr_n, nfr));
        if (next_pay(pay_f) < nfr) fail($sformatf("%s: payload of frame %0d missing", name, next_pay(pay_f)));
        $display("%s: %0d frames, %0d input stall cycles, %0d cycles", name, nfr, stall_cycles, ($time - t0) / 4);
        repeat (20) @(posedge clk);
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        $display("rnic_pkt_rx tb: DATA_WIDTH=%0d seed=%0d", DATA_WIDTH, seed);
        if (!$value$plusargs("vecdir=%s", vecdir)) vecdir = "../../vectors/rnic_pkt_rx";
        for (int i = 0; i < MAXF; i++) idx_mem[i] = '0;
        $readmemh({vecdir, "/data.hex"}, data_mem);
        $readmemh({vecdir, "/rec.hex"}, rec_mem);
        $readmemh({vecdir, "/index.hex"}, idx_mem);
        nfr = 0;
        while (nfr < MAXF && f_len(nfr) != 0) nfr = nfr + 1;
        if (nfr < 20) begin
            $display("TB FAIL: vectors not found in %s (%0d frames); run gen.py first", vecdir, nfr);
            $fatal(1);
        end
        n_bad = 0;
        n_pay = 0;
        for (int f = 0; f < nfr; f++) begin
            n_bad = n_bad + f_bad(f);
            n_pay = n_pay + (f_plen(f) != 0);
        end
        $display("%0d frames: %0d bad, %0d with payload", nfr, n_bad, n_pay);
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);

        run_phase(1'b1, "random gaps and back-pressure");
        run_phase(1'b0, "full rate");
        if (stall_cycles > STALL_PER_FRAME * nfr) begin
            fail($sformatf("full rate: %0d input stall cycles for %0d frames", stall_cycles, nfr));
        end

        if (errors == 0) begin
            $display("TB PASS");
        end else begin
            $display("TB FAIL: %0d errors", errors);
            $fatal(1);
        end
        $finish;
    end

endmodule

`resetall
