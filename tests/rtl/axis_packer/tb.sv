`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * axis_packer testbench.
 *
 * Random phase: frames of 0..9000 bytes (many lengths next to beat
 * boundaries), each cut into input beats of random size (0..KEEP_WIDTH bytes,
 * empty beats included) at random lane offsets with garbage in the unused
 * lanes, random tvalid gaps and random m_axis_tready. The scoreboard checks
 * every output byte, that every non-tlast beat is full, that the tlast beat's
 * tkeep is a run from lane 0, and each frame's length. A second packer
 * given each beat's run instead of finding it (KEEP_RUN 0) must match the
 * first cycle for cycle.
 * Throughput phases (no gaps, tready always 1): full input beats, and input
 * beats of KEEP_WIDTH-3 bytes at offset 3. Full beats must never stall the
 * input (frames back to back); misaligned beats at most one cycle per frame.
 */
module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;
    localparam int MEM_BYTES = 1 << 21;
    localparam int MAX_FRAMES = 4096;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

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

    axis_packer #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
        // the run comes from tkeep
        .s_axis_toff({$clog2(KW){1'b0}}), .s_axis_tend({($clog2(KW) + 1){1'b0}}),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast)
    );

    integer seed = 1;
    integer errors = 0;

    // the same packer given each beat's run (KEEP_RUN 0, as a producer that
    // knows its lanes uses it) must make the same output cycle for cycle
    logic [$clog2(KW)-1:0] in_off;
    logic [$clog2(KW):0]   in_end;
    always_comb begin
        in_off = '0;
        in_end = '0;
        for (int i = KW - 1; i >= 0; i--) if (s_axis_tkeep[i]) in_off = $clog2(KW)'(i);
        for (int i = 0; i < KW; i++) if (s_axis_tkeep[i]) in_end = ($clog2(KW) + 1)'(i + 1);
    end
    logic [DATA_WIDTH-1:0] r_tdata;
    logic [KW-1:0]         r_tkeep;
    logic                  r_tvalid, r_tready, r_tlast;
    axis_packer #(.DATA_WIDTH(DATA_WIDTH), .KEEP_RUN(0)) dut_run (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep({KW{1'bx}}), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(r_tready), .s_axis_tlast(s_axis_tlast),
        .s_axis_toff(in_off), .s_axis_tend(in_end),
        .m_axis_tdata(r_tdata), .m_axis_tkeep(r_tkeep), .m_axis_tvalid(r_tvalid),
        .m_axis_tready(m_axis_tready), .m_axis_tlast(r_tlast)
    );
    always @(posedge clk) begin
        if (!rst && (r_tready !== s_axis_tready || r_tvalid !== m_axis_tvalid
                     || (m_axis_tvalid && (r_tdata !== m_axis_tdata || r_tkeep !== m_axis_tkeep
                                           || r_tlast !== m_axis_tlast)))) begin
            if (errors < 10) $display("TB FAIL: the packer given runs differs from the one finding them");
            errors = errors + 1;
        end
    end

    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction

    // expected bytes of all frames, concatenated
    logic [7:0] exp_mem [MEM_BYTES];
    integer     exp_len [MAX_FRAMES];
    integer     tx_frames = 0;
    integer     tx_bytes = 0;
    integer     rx_frames = 0;
    integer     rx_bytes = 0;

    // modes: 0 random, 1 full beats, 2 KW-3 bytes at offset 3
    integer mode = 0;
    integer gap_pct = 30;     // percent of cycles without tvalid
    integer ready_pct = 70;   // percent of cycles with m_axis_tready
    integer stalls = 0;       // cycles with tvalid and no tready (throughput phases)
    integer phase_frames = 0;
    logic   measuring = 1'b0;

    function automatic integer pick_len(input integer dummy);
        integer r;
        r = rnd(100);
        if (r < 25) pick_len = rnd(3 * KW + 1);
        else if (r < 45) pick_len = (1 + rnd(8)) * KW + rnd(3) - 1;
        else if (r < 85) pick_len = rnd(1501);
        else pick_len = rnd(9001);
        if (pick_len < 0) pick_len = 0;
    endfunction

    task automatic send_beat(input logic [DATA_WIDTH-1:0] d, input logic [KW-1:0] k, input logic l);
        while (mode == 0 && rnd(100) < gap_pct) begin
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

    task automatic send_frame(input integer len);
        integer pos, n, off, base;
        logic [DATA_WIDTH-1:0] d;
        logic [KW-1:0] k;
        logic done;
        base = tx_bytes;
        for (int i = 0; i < len; i++) exp_mem[(base + i) % MEM_BYTES] = 8'($random(seed));
        exp_len[tx_frames % MAX_FRAMES] = len;
        tx_bytes = tx_bytes + len;
        tx_frames = tx_frames + 1;
        pos = 0;
        done = 1'b0;
        while (!done) begin
            if (mode == 1) begin
                n = KW; off = 0;
            end else if (mode == 2) begin
                n = KW - 3; off = 3;
            end else begin
                case (rnd(4))
                    0: n = KW;
                    1: n = rnd(KW + 1);
                    2: n = rnd(4);
                    default: n = KW - rnd(4);
                endcase
                off = rnd(KW - n + 1);
            end
            if (n > len - pos) n = len - pos;
            for (int i = 0; i < DATA_WIDTH / 32; i++) d[32*i +: 32] = $random(seed);
            k = '0;
            for (int i = 0; i < n; i++) begin
                d[8*(off+i) +: 8] = exp_mem[(base + pos + i) % MEM_BYTES];
                k[off+i] = 1'b1;
            end
            pos = pos + n;
            // random empty beats mid-frame in the random phase
            send_beat(d, k, pos == len && !(mode == 0 && rnd(20) == 0));
            done = pos == len && s_axis_tlast;
        end
    endtask

    // sink and scoreboard
    integer cur_bytes = 0;
    integer beat_n;

    // AXI4-Stream rule: a beat offered stays, unchanged, until taken
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
            if (rx_frames >= tx_frames) begin
                $display("TB FAIL: output beat with no frame sent");
                errors = errors + 1;
            end
            for (int i = 0; i < beat_n; i++) begin
                if (cur_bytes + i < exp_len[rx_frames % MAX_FRAMES] &&
                    m_axis_tdata[8*i +: 8] !== exp_mem[(rx_bytes + cur_bytes + i) % MEM_BYTES]) begin
                    if (errors < 10)
                        $display("TB FAIL: frame %0d byte %0d: got %h expected %h", rx_frames, cur_bytes + i,
                                 m_axis_tdata[8*i +: 8], exp_mem[(rx_bytes + cur_bytes + i) % MEM_BYTES]);
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
        while (rx_frames != tx_frames && t < 200000) begin
            @(posedge clk);
            t = t + 1;
        end
        if (rx_frames != tx_frames) begin
            $display("TB FAIL: timeout, %0d frames sent, %0d received", tx_frames, rx_frames);
            $fatal(1);
        end
    endtask

    task automatic throughput(input integer m, input integer nframes);
        integer f0;
        mode = m;
        ready_pct = 100;
        wait_drain;
        repeat (3) @(posedge clk);
        stalls = 0;
        measuring = 1'b1;
        f0 = tx_frames;
        for (int f = 0; f < nframes; f++) send_frame(f == 0 ? 40 * KW + 5 : 1 + rnd(1500));
        measuring = 1'b0;
        wait_drain;
        $display("throughput mode %0d: %0d frames, %0d input stall cycles", m, tx_frames - f0, stalls);
        if (stalls > (m == 1 ? 0 : tx_frames - f0)) begin
            $display("TB FAIL: mode %0d: %0d stall cycles for %0d frames", m, stalls, tx_frames - f0);
            errors = errors + 1;
        end
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        $display("axis_packer tb: DATA_WIDTH=%0d seed=%0d", DATA_WIDTH, seed);
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);

        // edge lengths first, then random
        for (int l = 0; l <= 3 * KW + 1; l++) send_frame(l);
        for (int f = 0; f < 300; f++) begin
            if (f % 50 == 0) begin
                gap_pct = rnd(60);
                ready_pct = 20 + rnd(81);
            end
            send_frame(pick_len(0));
        end
        wait_drain;
        // back to back zero-length frames with the output stalled
        ready_pct = 10;
        for (int f = 0; f < 20; f++) send_frame(rnd(2) ? 0 : rnd(2 * KW));
        wait_drain;

        throughput(1, 20);
        throughput(2, 20);

        if (errors == 0) $display("TB PASS: %0d frames, %0d bytes, %0d cycles", rx_frames, rx_bytes, $time / 4);
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
