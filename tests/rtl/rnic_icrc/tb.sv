`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_icrc and rnic_icrc_insert testbench.
 *
 * Vectors (gen_vectors.py -> vectors_*.hex): RoCEv2 frames captured from
 * Linux rxe (IPv4; SEND, RDMA WRITE, READ request/response, ACK, atomic),
 * IPv6 frames whose ICRC scapy computed, frames with every variant field
 * changed (ICRC must still hold) and corrupted frames (it must not).
 * 1. Checker: every vector frame through rnic_icrc with random gaps and
 *    garbage in idle cycles and unused lanes, the second time round with
 *    the pipeline held (ce low) at random; m_icrc_ok with the last beat at
 *    the output must match the expected verdict, which travels as tuser.
 * 2. Inserter: every good captured/scapy frame minus its ICRC through
 *    rnic_icrc_insert with random tvalid gaps and random m_axis_tready; the
 *    output must equal the original frame byte for byte, dense. Then random
 *    frames (IPv4/IPv6 EtherType, 1..9000 bytes, lengths around beat
 *    boundaries) checked against a model in this file. A second rnic_icrc
 *    watches the inserter output and must find every ICRC good (frames of
 *    67 bytes or more before the ICRC) when the frame comes out of it.
 * 3. Throughput: no gaps, tready always 1: the input stalls only for frames
 *    whose last beat lacks 4 free lanes, one cycle each.
 */
module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;
    localparam int VEC_BYTES = 1 << 16;
    localparam int VEC_FRAMES = 64;
    localparam int MEM_BYTES = 1 << 20;
    localparam int MAX_FRAMES = 1024;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    integer seed = 1;
    integer errors = 0;

    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction

    logic [7:0]  vec_data [VEC_BYTES];
    logic [63:0] vec_index [VEC_FRAMES];
    integer      vec_count;

    // ---------------------------------------------------------------- model
    logic [7:0] exp_mem [MEM_BYTES];    // frames as they must leave the inserter
    integer     exp_len [MAX_FRAMES];

    function automatic logic [31:0] model_crc(input integer base, input integer len);
        logic [31:0] c;
        logic [7:0]  b;
        logic        v6;
        c = 32'hffffffff;
        for (int i = 0; i < 8; i++) begin
            c = c ^ 32'hff;
            for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 32'hedb88320) : (c >> 1);
        end
        v6 = len > 13 && exp_mem[(base + 12) % MEM_BYTES] == 8'h86 && exp_mem[(base + 13) % MEM_BYTES] == 8'hdd;
        for (int i = 14; i < len; i++) begin
            b = exp_mem[(base + i) % MEM_BYTES];
            if (v6) begin
                if (i == 14) b = b | 8'h0f;
                if (i == 15 || i == 16 || i == 17 || i == 21 || i == 60 || i == 61 || i == 66) b = 8'hff;
            end else begin
                if (i == 15 || i == 22 || i == 24 || i == 25 || i == 40 || i == 41 || i == 46) b = 8'hff;
            end
            c = c ^ {24'h0, b};
            for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 32'hedb88320) : (c >> 1);
        end
        return ~c;
    endfunction

    // ---------------------------------------------------------------- checker on vectors
    logic [DATA_WIDTH-1:0] chk_tdata = '0;
    logic [KW-1:0]         chk_tkeep = '0;
    logic                  chk_valid = 1'b0;
    logic                  chk_tlast = 1'b0;
    logic                  chk_good = 1'b0;     // travels along as tuser: the expected verdict
    logic                  chk_ce = 1'b1;
    logic [DATA_WIDTH-1:0] chk_m_tdata;
    logic                  chk_m_tvalid, chk_m_tlast, chk_m_good;
    logic [31:0]           chk_crc;
    logic                  chk_ok;
    integer                chk_sent = 0;
    integer                chk_done = 0;

    rnic_icrc #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(1)) chk (
        .clk(clk), .rst(rst), .ce(chk_ce),
        .tdata(chk_tdata), .tkeep(chk_tkeep), .tvalid(chk_valid), .tlast(chk_tlast), .tuser(chk_good),
        .m_tdata(chk_m_tdata), .m_tvalid(chk_m_tvalid), .m_tlast(chk_m_tlast), .m_tuser(chk_m_good),
        .m_crc(chk_crc), .m_icrc_ok(chk_ok)
    );

    // the pipeline holds now and then (the inserter holds it under back-pressure)
    integer chk_ce_pct = 100;
    always @(posedge clk) chk_ce <= rnd(100) < chk_ce_pct;

    // the verdict comes out with the frame's last beat
    always @(posedge clk) begin
        if (!rst && chk_ce && chk_m_tvalid && chk_m_tlast) begin
            if (chk_ok !== chk_m_good) begin
                $display("TB FAIL: vector frame %0d: icrc_ok %b expected %b (crc %h)",
                         chk_done, chk_ok, chk_m_good, chk_crc);
                errors = errors + 1;
            end
            chk_done = chk_done + 1;
        end
    end

    task automatic check_vector(input integer v);
        integer off, len, pos;
        logic good;
        logic [DATA_WIDTH-1:0] d;
        logic [KW-1:0] k;
        off = int'(vec_index[v][31:0]);
        len = int'(vec_index[v][47:32]);
        good = vec_index[v][48];
        pos = 0;
        while (pos < len) begin
            while (rnd(3) == 0) begin
                chk_valid <= 1'b0;
                chk_tdata <= {DATA_WIDTH/32{$random(seed)}};
                chk_tkeep <= KW'($random(seed));
                chk_tlast <= rnd(2);
                chk_good <= rnd(2);
                @(posedge clk);
            end
            for (int i = 0; i < DATA_WIDTH / 32; i++) d[32*i +: 32] = $random(seed);
            k = '0;
            for (int i = 0; i < KW; i++) begin
                if (pos + i < len) begin
                    d[8*i +: 8] = vec_data[off + pos + i];
                    k[i] = 1'b1;
                end
            end
            pos = pos + KW;
            chk_tdata <= d;
            chk_tkeep <= k;
            chk_tlast <= pos >= len;
            chk_good <= good;
            chk_valid <= 1'b1;
            @(posedge clk);
            while (!chk_ce) @(posedge clk);
        end
        chk_valid <= 1'b0;
        chk_sent = chk_sent + 1;
    endtask

    // ---------------------------------------------------------------- inserter
    logic [DATA_WIDTH-1:0] s_axis_tdata = '0;
    logic [KW-1:0]         s_axis_tkeep = '0;
    logic                  s_axis_tvalid = 1'b0;
    logic                  s_axis_tready;
    logic                  s_axis_tlast = 1'b0;
    logic [DATA_WIDTH-1:0] m_axis_tdata;
    logic [KW-1:0]         m_axis_tkeep;
    logic                  m_axis_tvalid;
    logic                  m_axis_tready = 1'b0;
    logic                  m_axis_tlast;

    rnic_icrc_insert #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast)
    );

    // second checker on the inserter output; the scoreboard queues for each
    // frame whether its ICRC must be found good
    logic [DATA_WIDTH-1:0] out_m_tdata;
    logic                  out_m_tvalid, out_m_tlast, out_m_user;
    logic [31:0]           out_crc;
    logic                  out_ok;
    logic                  out_must [MAX_FRAMES];
    integer                out_done = 0;

    rnic_icrc #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(1)) chk_out (
        .clk(clk), .rst(rst), .ce(1'b1),
        .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid && m_axis_tready),
        .tlast(m_axis_tlast), .tuser(1'b0),
        .m_tdata(out_m_tdata), .m_tvalid(out_m_tvalid), .m_tlast(out_m_tlast), .m_tuser(out_m_user),
        .m_crc(out_crc), .m_icrc_ok(out_ok)
    );

    always @(posedge clk) begin
        if (!rst && out_m_tvalid && out_m_tlast) begin
            // (shorter frames put ICRC bytes where the header is skipped or masked)
            if (!out_ok && out_must[out_done % MAX_FRAMES]) begin
                $display("TB FAIL: frame %0d: checker on the inserter output finds a bad ICRC", out_done);
                errors = errors + 1;
            end
            out_done = out_done + 1;
        end
    end

    integer tx_frames = 0;
    integer tx_bytes = 0;
    integer rx_frames = 0;
    integer rx_bytes = 0;
    integer gap_pct = 30;
    integer ready_pct = 70;
    integer stalls = 0;
    logic   measuring = 1'b0;

    task automatic send_beat(input logic [DATA_WIDTH-1:0] d, input logic [KW-1:0] k, input logic l);
        while (rnd(100) < gap_pct) begin
            s_axis_tvalid <= 1'b0;
            s_axis_tdata <= {DATA_WIDTH/32{$random(seed)}};
            @(posedge clk);
        end
        s_axis_tdata <= d;
        s_axis_tkeep <= k;
        s_axis_tlast <= l;
        s_axis_tvalid <= 1'b1;
        @(posedge clk);
        while (!s_axis_tready) begin
            if (measuring) stalls = stalls + 1;
            @(posedge clk);
        end
        s_axis_tvalid <= 1'b0;
    endtask

    // frame of len bytes already in exp_mem at tx_bytes; ICRC appended by the caller's choice
    task automatic send_frame(input integer len, input logic [31:0] icrc_exp);
        integer base, pos;
        logic [DATA_WIDTH-1:0] d;
        logic [KW-1:0] k;
        base = tx_bytes;
        for (int i = 0; i < 4; i++) exp_mem[(base + len + i) % MEM_BYTES] = icrc_exp[8*i +: 8];
        exp_len[tx_frames % MAX_FRAMES] = len + 4;
        tx_bytes = tx_bytes + len + 4;
        tx_frames = tx_frames + 1;
        pos = 0;
        while (pos < len) begin
            for (int i = 0; i < DATA_WIDTH / 32; i++) d[32*i +: 32] = $random(seed);
            k = '0;
            for (int i = 0; i < KW; i++) begin
                if (pos + i < len) begin
                    d[8*i +: 8] = exp_mem[(base + pos + i) % MEM_BYTES];
                    k[i] = 1'b1;
                end
            end
            pos = pos + KW;
            send_beat(d, k, pos >= len);
        end
    endtask

    task automatic send_vector(input integer v);
        integer off, len;
        logic [31:0] icrc_vec;
        off = int'(vec_index[v][31:0]);
        len = int'(vec_index[v][47:32]) - 4;
        for (int i = 0; i < len; i++) exp_mem[(tx_bytes + i) % MEM_BYTES] = vec_data[off + i];
        for (int i = 0; i < 4; i++) icrc_vec[8*i +: 8] = vec_data[off + len + i];
        if (model_crc(tx_bytes, len) !== icrc_vec) begin
            $display("TB FAIL: model ICRC %h differs from vector %0d ICRC %h", model_crc(tx_bytes, len), v, icrc_vec);
            errors = errors + 1;
        end
        send_frame(len, icrc_vec);
    endtask

    task automatic send_random(input integer len);
        logic v6;
        for (int i = 0; i < len; i++) exp_mem[(tx_bytes + i) % MEM_BYTES] = 8'($random(seed));
        v6 = rnd(2);
        if (len > 13) begin
            exp_mem[(tx_bytes + 12) % MEM_BYTES] = v6 ? 8'h86 : 8'h08;
            exp_mem[(tx_bytes + 13) % MEM_BYTES] = v6 ? 8'hdd : 8'h00;
        end
        send_frame(len, model_crc(tx_bytes, len));
    endtask

    // AXI4-Stream rule on the output: a beat offered stays until taken
    logic                  hold_reg = 1'b0;
    logic [DATA_WIDTH-1:0] hold_data;
    logic [KW-1:0]         hold_keep;
    logic                  hold_last;

    always @(posedge clk) begin
        if (!rst && hold_reg && (!m_axis_tvalid || m_axis_tdata !== hold_data ||
                                 m_axis_tkeep !== hold_keep || m_axis_tlast !== hold_last)) begin
            $display("TB FAIL: output beat changed or withdrawn before it was taken");
            errors = errors + 1;
        end
        hold_reg <= m_axis_tvalid && !m_axis_tready;
        hold_data <= m_axis_tdata;
        hold_keep <= m_axis_tkeep;
        hold_last <= m_axis_tlast;
    end

    // scoreboard
    integer cur_bytes = 0;
    integer beat_n;

    always @(posedge clk) begin
        if (!rst && m_axis_tvalid && m_axis_tready) begin
            beat_n = 0;
            for (int i = 0; i < KW; i++) if (m_axis_tkeep[i]) beat_n = beat_n + 1;
            if (!m_axis_tlast && m_axis_tkeep != {KW{1'b1}}) begin
                $display("TB FAIL: frame %0d: non-last beat with tkeep %h", rx_frames, m_axis_tkeep);
                errors = errors + 1;
            end
            if (m_axis_tlast && m_axis_tkeep != KW'(({{KW{1'b0}}, 1'b1} << beat_n) - 1)) begin
                $display("TB FAIL: frame %0d: last beat tkeep %h not a run from lane 0", rx_frames, m_axis_tkeep);
                errors = errors + 1;
            end
            for (int i = 0; i < beat_n; i++) begin
                if (cur_bytes + i < exp_len[rx_frames % MAX_FRAMES] &&
                    m_axis_tdata[8*i +: 8] !== exp_mem[(rx_bytes + cur_bytes + i) % MEM_BYTES]) begin
                    if (errors < 10)
                        $display("TB FAIL: frame %0d byte %0d of %0d: got %h expected %h", rx_frames, cur_bytes + i,
                                 exp_len[rx_frames % MAX_FRAMES], m_axis_tdata[8*i +: 8],
                                 exp_mem[(rx_bytes + cur_bytes + i) % MEM_BYTES]);
                    errors = errors + 1;
                end
            end
            cur_bytes = cur_bytes + beat_n;
            if (m_axis_tlast) begin
                if (cur_bytes != exp_len[rx_frames % MAX_FRAMES]) begin
                    $display("TB FAIL: frame %0d: %0d bytes, expected %0d", rx_frames, cur_bytes,
                             exp_len[rx_frames % MAX_FRAMES]);
                    errors = errors + 1;
                end
                out_must[rx_frames % MAX_FRAMES] = exp_len[rx_frames % MAX_FRAMES] >= 67 + 4;
                rx_bytes = rx_bytes + exp_len[rx_frames % MAX_FRAMES];
                rx_frames = rx_frames + 1;
                cur_bytes = 0;
            end
            if (errors > 20) begin
                $display("TB FAIL: too many errors");
                $fatal(1);
            end
        end
        m_axis_tready <= rnd(100) < ready_pct;
    end

    task automatic wait_drain;
        integer t;
        t = 0;
        while (rx_frames != tx_frames && t < 100000) begin
            @(posedge clk);
            t = t + 1;
        end
        if (rx_frames != tx_frames) begin
            $display("TB FAIL: timeout, %0d frames sent, %0d received", tx_frames, rx_frames);
            $fatal(1);
        end
    endtask

    // one hex value per line into vec_data (which 0) or vec_index (which 1)
    task automatic read_hex(input string path, input integer which);
        integer fd, n, r;
        logic [63:0] x;
        fd = $fopen(path, "r");
        if (fd == 0) begin
            $display("TB FAIL: cannot open %s", path);
            $fatal(1);
        end
        n = 0;
        r = $fscanf(fd, "%h\n", x);
        while (r == 1) begin
            if (which == 0 && n < VEC_BYTES) vec_data[n] = x[7:0];
            if (which == 1 && n < VEC_FRAMES) vec_index[n] = x;
            n = n + 1;
            r = $fscanf(fd, "%h\n", x);
        end
        $fclose(fd);
    endtask

    integer n_good, n_bad, allowed, len;
    string  vecdir;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        $display("rnic_icrc tb: DATA_WIDTH=%0d seed=%0d", DATA_WIDTH, seed);
        for (int i = 0; i < VEC_FRAMES; i++) vec_index[i] = '0;
        // run_tb.sh runs in build/tb/<name>-w<width>
        if (!$value$plusargs("vecdir=%s", vecdir)) vecdir = "../../../tests/rtl/rnic_icrc";
        read_hex({vecdir, "/vectors_data.hex"}, 0);
        read_hex({vecdir, "/vectors_index.hex"}, 1);
        vec_count = 0;
        for (int i = 0; i < VEC_FRAMES; i++) if (vec_index[i][47:32] != 0) vec_count = i + 1;
        if (vec_count < 10) begin
            $display("TB FAIL: vectors not found (%0d)", vec_count);
            $fatal(1);
        end
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);

        // 1. checker on every vector, twice in random order
        n_good = 0;
        n_bad = 0;
        for (int r = 0; r < 2 * vec_count; r++) begin
            integer v;
            v = r < vec_count ? r : rnd(vec_count);
            chk_ce_pct = r < vec_count ? 100 : 60;
            check_vector(v);
            if (vec_index[v][48]) n_good = n_good + 1;
            else n_bad = n_bad + 1;
        end
        for (int t = 0; t < 1000 && chk_done != chk_sent; t++) @(posedge clk);
        if (chk_done != chk_sent) begin
            $display("TB FAIL: %0d vector frames sent, %0d verdicts", chk_sent, chk_done);
            errors = errors + 1;
        end
        $display("checker: %0d good and %0d bad vector frames", n_good, n_bad);

        // 2. inserter: captured and scapy frames, then random frames
        for (int v = 0; v < vec_count; v++) if (vec_index[v][49]) send_vector(v);
        for (int f = 0; f < 60; f++) begin
            if (f % 20 == 0) begin
                gap_pct = rnd(60);
                ready_pct = 20 + rnd(81);
            end
            case (rnd(4))
                0: len = 1 + rnd(3 * KW);
                1: len = (1 + rnd(4)) * KW - 4 + rnd(8);
                2: len = 14 + rnd(1500);
                default: len = 1 + rnd(9000);
            endcase
            send_random(len);
        end
        wait_drain;

        // 3. throughput
        gap_pct = 0;
        ready_pct = 100;
        repeat (3) @(posedge clk);
        stalls = 0;
        allowed = 0;
        measuring = 1'b1;
        for (int f = 0; f < 3 * KW; f++) begin
            len = 60 + f;
            if (len % KW == 0 || len % KW > KW - 4) allowed = allowed + 1;
            send_random(len);
        end
        measuring = 1'b0;
        wait_drain;
        repeat (20) @(posedge clk);
        if (out_done != rx_frames) begin
            $display("TB FAIL: %0d frames out of the inserter, %0d checked", rx_frames, out_done);
            errors = errors + 1;
        end
        $display("throughput: %0d frames, %0d input stall cycles (%0d allowed)", 3 * KW, stalls, allowed);
        if (stalls > allowed) begin
            $display("TB FAIL: %0d input stall cycles, at most %0d allowed", stalls, allowed);
            errors = errors + 1;
        end

        if (errors == 0) $display("TB PASS: %0d vector checks, %0d frames through the inserter, %0d cycles", 2 * vec_count, rx_frames, $time / 4);
        else begin
            $display("TB FAIL: %0d errors", errors);
            $fatal(1);
        end
        $finish;
    end

    // watchdog: a hang is a failure
    initial begin
        #(4 * 2000000);
        $display("TB FAIL: timeout (no end after 2M cycles)");
        $fatal(1);
    end

endmodule

`resetall
