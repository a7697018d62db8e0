`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_rx_check testbench.
 *
 * Vectors (gen.py -> build/vectors/rnic_rx_check): good RoCEv2 frames (rxe
 * captures, scapy IPv6 frames, a MAC-padded minimum frame) and bad frames of
 * every kind, each labelled with the status the checker must report.
 * Every frame is sent several times in random order, dense, with random idle
 * cycles between and inside frames (garbage on the bus while idle and in
 * unused lanes); frames flagged as MAC errors carry tuser on their last beat.
 * Checks: s_axis_rx_tready always 1; the output repeats the input beats in
 * order (data of the kept lanes, tkeep, tlast); m_axis_tuser is set exactly on
 * the last beat of frames that are not good; with each output tlast exactly
 * one stat_* pulse, the expected one, and no pulse at any other time.
 * A last round runs without idle cycles at all.
 */
module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;
    localparam int MAXF = 1024;
    localparam int MAXB = 1 << 20;
    localparam int MAXQ = 1 << 16;
    localparam int ROUNDS = 4;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [DATA_WIDTH-1:0] s_axis_rx_tdata = '0;
    logic [KW-1:0]         s_axis_rx_tkeep = '0;
    logic                  s_axis_rx_tvalid = 1'b0;
    logic                  s_axis_rx_tready;
    logic                  s_axis_rx_tlast = 1'b0;
    logic                  s_axis_rx_tuser = 1'b0;
    logic [DATA_WIDTH-1:0] m_axis_tdata;
    logic [KW-1:0]         m_axis_tkeep;
    logic                  m_axis_tvalid;
    logic                  m_axis_tlast;
    logic                  m_axis_tuser;
    logic stat_good, stat_not_roce, stat_bad_udp_port, stat_bad_ip_csum, stat_bad_icrc, stat_malformed;

    rnic_rx_check #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk(clk), .rst(rst),
        .s_axis_rx_tdata(s_axis_rx_tdata), .s_axis_rx_tkeep(s_axis_rx_tkeep),
        .s_axis_rx_tvalid(s_axis_rx_tvalid), .s_axis_rx_tready(s_axis_rx_tready),
        .s_axis_rx_tlast(s_axis_rx_tlast), .s_axis_rx_tuser(s_axis_rx_tuser),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(1'b1), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
        .stat_good(stat_good), .stat_not_roce(stat_not_roce), .stat_bad_udp_port(stat_bad_udp_port),
        .stat_bad_ip_csum(stat_bad_ip_csum), .stat_bad_icrc(stat_bad_icrc), .stat_malformed(stat_malformed)
    );

    integer seed = 1;
    integer errors = 0;
    logic   gaps = 1'b1;

    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction

    task automatic fail(input string msg);
        if (errors < 20) $display("TB FAIL: %s (t=%0t)", msg, $time);
        errors = errors + 1;
    endtask

    logic [7:0]  data_mem [MAXB];
    logic [63:0] idx_mem [MAXF];
    integer      nfr;

    function automatic integer f_off(input integer f);
        f_off = idx_mem[f][31:0];
    endfunction
    function automatic integer f_len(input integer f);
        f_len = idx_mem[f][47:32];
    endfunction
    function automatic integer f_status(input integer f);
        f_status = idx_mem[f][50:48];
    endfunction
    function automatic logic f_mac_err(input integer f);
        f_mac_err = idx_mem[f][51];
    endfunction

    // sent beats and frames, in order
    logic [DATA_WIDTH-1:0] q_data [MAXQ];
    logic [KW-1:0]         q_keep [MAXQ];
    logic                  q_last [MAXQ];
    integer                q_wr = 0, q_rd = 0;
    integer                fq [MAXQ];
    integer                fq_wr = 0, fq_rd = 0;
    integer                stat_count [6];

    task automatic send_frame(input integer f);
        integer len, off;
        len = f_len(f);
        off = f_off(f);
        fq[fq_wr % MAXQ] = f;
        fq_wr = fq_wr + 1;
        for (int o = 0; o < len; o += KW) begin
            while (gaps && rnd(6) == 0) begin
                s_axis_rx_tvalid <= 1'b0;
                s_axis_rx_tdata <= {$random(seed), $random(seed)};
                s_axis_rx_tkeep <= $random(seed);
                s_axis_rx_tlast <= $random(seed);
                s_axis_rx_tuser <= $random(seed);
                @(posedge clk);
            end
            for (int i = 0; i < KW; i++) begin
                s_axis_rx_tdata[8*i +: 8] <= (o + i < len) ? data_mem[off + o + i] : 8'(rnd(256));
                s_axis_rx_tkeep[i] <= o + i < len;
                q_keep[q_wr % MAXQ][i] = o + i < len;
                q_data[q_wr % MAXQ][8*i +: 8] = (o + i < len) ? data_mem[off + o + i] : 8'h00;
            end
            q_last[q_wr % MAXQ] = o + KW >= len;
            q_wr = q_wr + 1;
            s_axis_rx_tlast <= o + KW >= len;
            s_axis_rx_tuser <= f_mac_err(f) && o + KW >= len;
            s_axis_rx_tvalid <= 1'b1;
            @(posedge clk);
            if (s_axis_rx_tready !== 1'b1) fail("s_axis_rx_tready low");
        end
        s_axis_rx_tvalid <= 1'b0;
        s_axis_rx_tuser <= 1'b0;
    endtask

    // ---------------------------------------------------------------- monitor
    always @(posedge clk) begin
        if (!rst) begin
            integer npulse, kind;
            logic [5:0] st;
            if (s_axis_rx_tready !== 1'b1) fail("s_axis_rx_tready low");
            st = {stat_malformed, stat_bad_icrc, stat_bad_ip_csum, stat_bad_udp_port, stat_not_roce, stat_good};
            npulse = 0;
            kind = 0;
            for (int k = 0; k < 6; k++) if (st[k]) begin npulse = npulse + 1; kind = k; end
            if (m_axis_tvalid) begin
                if (q_rd >= q_wr) begin
                    fail("output beat that was never sent");
                end else begin
                    if (m_axis_tkeep !== q_keep[q_rd % MAXQ] || m_axis_tlast !== q_last[q_rd % MAXQ]) begin
                        fail($sformatf("beat %0d: tkeep/tlast differ", q_rd));
                    end
                    for (int i = 0; i < KW; i++) begin
                        if (q_keep[q_rd % MAXQ][i] && m_axis_tdata[8*i +: 8] !== q_data[q_rd % MAXQ][8*i +: 8]) begin
                            fail($sformatf("beat %0d lane %0d: data differ", q_rd, i));
                        end
                    end
                    if (q_last[q_rd % MAXQ]) begin
                        integer f;
                        f = fq[fq_rd % MAXQ];
                        fq_rd = fq_rd + 1;
                        if (npulse != 1 || kind != f_status(f)) begin
                            fail($sformatf("frame %0d (len %0d): status pulses %06b, expected status %0d",
                                           f, f_len(f), st, f_status(f)));
                        end
                        if (m_axis_tuser !== (f_status(f) != 0)) begin
                            fail($sformatf("frame %0d: tuser %b on the last beat, expected status %0d",
                                           f, m_axis_tuser, f_status(f)));
                        end
                        if (npulse == 1) stat_count[kind] = stat_count[kind] + 1;
                    end else begin
                        if (m_axis_tuser !== 1'b0) fail($sformatf("beat %0d: tuser before the last beat", q_rd));
                        if (npulse != 0) fail("status pulse without a frame end");
                    end
                    q_rd = q_rd + 1;
                end
            end else if (npulse != 0) begin
                fail("status pulse without a frame end");
            end
        end
    end

    // ---------------------------------------------------------------- main
    string vecdir;
    integer order [MAXF];

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        $display("rnic_rx_check tb: DATA_WIDTH=%0d seed=%0d", DATA_WIDTH, seed);
        if (!$value$plusargs("vecdir=%s", vecdir)) vecdir = "../../vectors/rnic_rx_check";
        for (int i = 0; i < MAXF; i++) idx_mem[i] = '0;
        for (int k = 0; k < 6; k++) stat_count[k] = 0;
        $readmemh({vecdir, "/data.hex"}, data_mem);
        $readmemh({vecdir, "/index.hex"}, idx_mem);
        nfr = 0;
        while (nfr < MAXF && f_len(nfr) != 0) nfr = nfr + 1;
        if (nfr < 20) begin
            $display("TB FAIL: vectors not found in %s (%0d frames); run gen.py first", vecdir, nfr);
            $fatal(1);
        end
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);

        for (int r = 0; r < ROUNDS; r++) begin
            gaps = r != ROUNDS - 1;
            for (int i = 0; i < nfr; i++) order[i] = i;
            if (r > 0) begin
                for (int i = nfr - 1; i > 0; i--) begin
                    integer j, t;
                    j = rnd(i + 1);
                    t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                end
            end
            for (int i = 0; i < nfr; i++) send_frame(order[i]);
        end
        repeat (40) @(posedge clk);
        if (q_rd != q_wr || fq_rd != fq_wr) fail($sformatf("%0d of %0d beats came out", q_rd, q_wr));
        $display("%0d frames checked; status good %0d, not_roce %0d, bad_udp_port %0d, bad_ip_csum %0d, bad_icrc %0d, malformed %0d",
                 fq_rd, stat_count[0], stat_count[1], stat_count[2], stat_count[3], stat_count[4], stat_count[5]);
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
