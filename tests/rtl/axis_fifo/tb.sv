`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * axis_fifo testbench: four FIFOs side by side, each with its own random
 * traffic and scoreboard (fifo_env below):
 *   0: defaults (16 KiB, frame FIFO, drop bad frames)
 *   1: 64 beats, frame FIFO, drop bad frames
 *   2: 64 beats, frame FIFO, bad frames kept (back-pressure)
 *   3: 64 beats, plain FIFO
 * Frames of 1..9000 bytes (many larger than the small FIFOs), a fifth marked
 * bad (tuser on the last beat), random tvalid gaps, random m_axis_tready.
 * Checks: every frame gets exactly one status pulse, after its tlast entered,
 * and the right one (bad frames dropped only with DROP_BAD_FRAME, frames
 * larger than the FIFO always dropped as overflow, nothing dropped by the
 * plain FIFO); s_axis_tready stays 1 in drop mode; frames leave in order with
 * every byte, tkeep, tlast and the last beat's tuser intact; in frame mode no
 * beat of a frame leaves before its status; output beats stay until taken. A
 * final phase (free output, no gaps, frames up to half the FIFO) must neither
 * overflow nor stall the input (one beat per cycle through the FIFO).
 */
module fifo_env #(
    parameter int DATA_WIDTH = 64,
    parameter int DEPTH_BYTES = 16384,
    parameter int FRAME_FIFO = 1,
    parameter int DROP_BAD_FRAME = 1,
    parameter int ENV_ID = 0,
    parameter int NFRAMES = 200
) (
    input  wire logic clk,
    input  wire logic rst,
    output      logic done,
    output      integer errors
);

    localparam int KW = DATA_WIDTH / 8;
    localparam int DEPTH = DEPTH_BYTES / KW;
    localparam int MEM_BYTES = 1 << 18;
    localparam bit DROP = FRAME_FIFO != 0 && DROP_BAD_FRAME != 0;

    logic [DATA_WIDTH-1:0] s_axis_tdata = '0;
    logic [KW-1:0]         s_axis_tkeep = '0;
    logic                  s_axis_tvalid = 1'b0;
    logic                  s_axis_tready;
    logic                  s_axis_tlast = 1'b0;
    logic                  s_axis_tuser = 1'b0;
    logic [DATA_WIDTH-1:0] m_axis_tdata;
    logic [KW-1:0]         m_axis_tkeep;
    logic                  m_axis_tvalid;
    logic                  m_axis_tready = 1'b0;
    logic                  m_axis_tlast;
    logic                  m_axis_tuser;
    logic                  status_overflow, status_bad_frame, status_good_frame;
    logic [$clog2(DEPTH):0] status_level;
    integer                 max_level = 0;

    axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH),
        .DEPTH_BYTES(DEPTH_BYTES),
        .FRAME_FIFO(FRAME_FIFO),
        .DROP_BAD_FRAME(DROP_BAD_FRAME)
    ) dut (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
        .status_overflow(status_overflow), .status_bad_frame(status_bad_frame),
        .status_good_frame(status_good_frame), .status_level(status_level)
    );

    integer seed = 1;

    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction

    // frames: bytes at frame_off in exp_mem; fate 0 pending, 1 good, 2 bad, 3 overflow
    logic [7:0] exp_mem [MEM_BYTES];
    integer     frame_off [NFRAMES];
    integer     frame_len [NFRAMES];
    logic       frame_bad [NFRAMES];
    integer     frame_fate [NFRAMES];
    logic       no_overflow [NFRAMES];
    integer     tx_frames = 0;      // frames started
    integer     tx_tlast = 0;       // frames whose tlast was taken
    integer     tx_bytes = 0;
    integer     resolved = 0;
    integer     n_good = 0, n_bad = 0, n_over = 0;
    integer     gap_pct = 30;
    integer     ready_pct = 70;
    logic       phase_free = 1'b0;

    initial begin
        errors = 0;
        done = 1'b0;
    end

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: env %0d: %s", ENV_ID, msg);
        errors = errors + 1;
    endtask

    task automatic send_frame(input integer len, input logic bad);
        integer f, pos;
        logic [DATA_WIDTH-1:0] d;
        logic [KW-1:0] k;
        f = tx_frames;
        frame_off[f] = tx_bytes;
        frame_len[f] = len;
        frame_bad[f] = bad;
        frame_fate[f] = 0;
        no_overflow[f] = phase_free;
        for (int i = 0; i < len; i++) exp_mem[(tx_bytes + i) % MEM_BYTES] = 8'($random(seed));
        tx_bytes = tx_bytes + len;
        tx_frames = tx_frames + 1;
        pos = 0;
        while (pos < len) begin
            while (rnd(100) < gap_pct) begin
                s_axis_tvalid <= 1'b0;
                s_axis_tdata <= {DATA_WIDTH/32{$random(seed)}};
                @(posedge clk);
            end
            for (int i = 0; i < DATA_WIDTH / 32; i++) d[32*i +: 32] = $random(seed);
            k = '0;
            for (int i = 0; i < KW; i++) begin
                if (pos + i < len) begin
                    d[8*i +: 8] = exp_mem[(frame_off[f] + pos + i) % MEM_BYTES];
                    k[i] = 1'b1;
                end
            end
            pos = pos + KW;
            s_axis_tdata <= d;
            s_axis_tkeep <= k;
            s_axis_tlast <= pos >= len;
            // tuser counts only on the last beat; noise elsewhere in drop mode
            s_axis_tuser <= pos >= len ? bad : (DROP ? rnd(4) == 0 : 1'b0);
            s_axis_tvalid <= 1'b1;
            @(posedge clk);
            while (!s_axis_tready) begin
                if (phase_free) fail("input stalled with a free output (below one beat per cycle)");
                @(posedge clk);
            end
            if (pos >= len) tx_tlast = tx_tlast + 1;
        end
        s_axis_tvalid <= 1'b0;
    endtask

    // status pulses resolve frames in order
    integer beats_f;
    always @(posedge clk) begin
        if (!rst) begin
            if (DROP && !s_axis_tready) fail("s_axis_tready low in drop mode");
            if (32'(status_level) > DEPTH) fail($sformatf("status_level %0d above the depth", status_level));
            if (FRAME_FIFO == 0 && !s_axis_tready && 32'(status_level) != DEPTH)
                fail($sformatf("plain FIFO refuses input at level %0d of %0d", status_level, DEPTH));
            if (32'(status_level) > max_level) max_level = 32'(status_level);
            if (32'(status_good_frame) + 32'(status_bad_frame) + 32'(status_overflow) > 1)
                fail("more than one status pulse in a cycle");
            if (status_good_frame || status_bad_frame || status_overflow) begin
                if (resolved >= tx_tlast) begin
                    fail($sformatf("status pulse for frame %0d before its tlast", resolved));
                end else begin
                    beats_f = (frame_len[resolved] + KW - 1) / KW;
                    frame_fate[resolved] = status_good_frame ? 1 : status_bad_frame ? 2 : 3;
                    if (status_good_frame) n_good = n_good + 1;
                    if (status_bad_frame) n_bad = n_bad + 1;
                    if (status_overflow) n_over = n_over + 1;
                    if (FRAME_FIFO == 0 && !status_good_frame)
                        fail($sformatf("frame %0d dropped by a plain FIFO", resolved));
                    if (FRAME_FIFO != 0 && beats_f > DEPTH && !status_overflow)
                        fail($sformatf("frame %0d of %0d beats not dropped as oversized", resolved, beats_f));
                    if (FRAME_FIFO != 0 && !DROP && beats_f <= DEPTH && !status_good_frame)
                        fail($sformatf("frame %0d dropped without drop mode", resolved));
                    if (DROP && frame_bad[resolved] && status_good_frame)
                        fail($sformatf("bad frame %0d kept", resolved));
                    if (DROP && !frame_bad[resolved] && status_bad_frame)
                        fail($sformatf("good frame %0d dropped as bad", resolved));
                    if (no_overflow[resolved] && status_overflow)
                        fail($sformatf("frame %0d (%0d beats) overflowed with a free output", resolved, beats_f));
                    resolved = resolved + 1;
                end
            end
        end
    end

    // output rule: a beat offered stays until taken
    logic                  hold_reg = 1'b0;
    logic [DATA_WIDTH-1:0] hold_data;
    logic [KW-1:0]         hold_keep;
    logic                  hold_last;
    always @(posedge clk) begin
        if (!rst && hold_reg && (!m_axis_tvalid || m_axis_tdata !== hold_data ||
                                 m_axis_tkeep !== hold_keep || m_axis_tlast !== hold_last))
            fail("output beat changed or withdrawn before it was taken");
        hold_reg <= m_axis_tvalid && !m_axis_tready;
        hold_data <= m_axis_tdata;
        hold_keep <= m_axis_tkeep;
        hold_last <= m_axis_tlast;
    end

    // output scoreboard
    integer rx_frame = 0;
    integer rx_pos = 0;
    integer rx_frames = 0;
    integer n;
    always @(posedge clk) begin
        if (!rst && m_axis_tvalid && m_axis_tready) begin
            if (rx_pos == 0) begin
                while (rx_frame < resolved && frame_fate[rx_frame] != 1) rx_frame = rx_frame + 1;
                if (FRAME_FIFO != 0 && rx_frame >= resolved)
                    fail($sformatf("frame %0d leaves before it was committed", rx_frame));
            end
            if (rx_frame >= tx_frames) begin
                fail("output beat with no frame sent");
            end else begin
                n = frame_len[rx_frame] - rx_pos;
                if (n > KW) n = KW;
                if (m_axis_tkeep !== KW'(({{KW{1'b0}}, 1'b1} << n) - 1))
                    fail($sformatf("frame %0d at %0d: tkeep %h", rx_frame, rx_pos, m_axis_tkeep));
                if (m_axis_tlast !== (rx_pos + n == frame_len[rx_frame]))
                    fail($sformatf("frame %0d at %0d: tlast %b", rx_frame, rx_pos, m_axis_tlast));
                if (m_axis_tlast && m_axis_tuser !== frame_bad[rx_frame])
                    fail($sformatf("frame %0d: tuser %b on the last beat", rx_frame, m_axis_tuser));
                for (int i = 0; i < n; i++) begin
                    if (m_axis_tdata[8*i +: 8] !== exp_mem[(frame_off[rx_frame] + rx_pos + i) % MEM_BYTES])
                        fail($sformatf("frame %0d byte %0d: got %h expected %h", rx_frame, rx_pos + i,
                                       m_axis_tdata[8*i +: 8],
                                       exp_mem[(frame_off[rx_frame] + rx_pos + i) % MEM_BYTES]));
                end
                rx_pos = rx_pos + n;
                if (m_axis_tlast) begin
                    rx_pos = 0;
                    rx_frame = rx_frame + 1;
                    rx_frames = rx_frames + 1;
                end
            end
        end
        m_axis_tready <= rnd(100) < ready_pct;
    end

    function automatic integer pick_len(input integer dummy);
        integer r;
        r = rnd(100);
        if (r < 40) pick_len = 1 + rnd(DEPTH * KW / 2);
        else if (r < 55) pick_len = 1 + rnd(4 * KW);
        else if (r < 80) pick_len = DEPTH * KW - 2 * KW + rnd(4 * KW + 1);
        else pick_len = 1 + rnd(9000);
        if (pick_len < 1) pick_len = 1;
    endfunction

    task automatic wait_drain;
        integer t;
        t = 0;
        while ((resolved != tx_frames || rx_frames != n_good) && t < 100000) begin
            @(posedge clk);
            t = t + 1;
        end
        if (resolved != tx_frames || rx_frames != n_good) begin
            fail($sformatf("timeout: %0d frames sent, %0d resolved, %0d good, %0d received",
                           tx_frames, resolved, n_good, rx_frames));
        end
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        seed = seed * 7 + ENV_ID;
        @(negedge rst);
        @(posedge clk);
        for (int f = 0; f < NFRAMES - 30; f++) begin
            if (f % 40 == 0) begin
                gap_pct = rnd(50);
                ready_pct = 10 + rnd(91);
            end
            send_frame(pick_len(0), rnd(5) == 0);
        end
        wait_drain;
        // free output: frames up to half the FIFO never overflow
        gap_pct = 0;
        ready_pct = 100;
        repeat (3) @(posedge clk);
        phase_free = 1'b1;
        for (int f = 0; f < 30; f++) send_frame(1 + rnd(DEPTH * KW / 2 - 4 * KW), rnd(5) == 0);
        wait_drain;
        repeat (4) @(posedge clk);
        if (status_level != '0) fail($sformatf("status_level %0d after the FIFO drained", status_level));
        // the random phase (slow output, frames up to the depth) fills it
        if (max_level < DEPTH / 2) fail($sformatf("status_level never rose above %0d of %0d", max_level, DEPTH));
        $display("env %0d (DEPTH %0d beats, FRAME_FIFO %0d, DROP_BAD_FRAME %0d): %0d frames, %0d good, %0d bad, %0d overflow, %0d received",
                 ENV_ID, DEPTH, FRAME_FIFO, DROP_BAD_FRAME, tx_frames, n_good, n_bad, n_over, rx_frames);
        done = 1'b1;
    end

endmodule

module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic   done0, done1, done2, done3;
    integer err0, err1, err2, err3;

    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .ENV_ID(0), .NFRAMES(120)) env0 (
        .clk(clk), .rst(rst), .done(done0), .errors(err0));
    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .DEPTH_BYTES(64 * KW), .FRAME_FIFO(1), .DROP_BAD_FRAME(1),
               .ENV_ID(1), .NFRAMES(200)) env1 (
        .clk(clk), .rst(rst), .done(done1), .errors(err1));
    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .DEPTH_BYTES(64 * KW), .FRAME_FIFO(1), .DROP_BAD_FRAME(0),
               .ENV_ID(2), .NFRAMES(200)) env2 (
        .clk(clk), .rst(rst), .done(done2), .errors(err2));
    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .DEPTH_BYTES(64 * KW), .FRAME_FIFO(0), .DROP_BAD_FRAME(0),
               .ENV_ID(3), .NFRAMES(200)) env3 (
        .clk(clk), .rst(rst), .done(done3), .errors(err3));

    integer seed;
    integer cycles = 0;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        $display("axis_fifo tb: DATA_WIDTH=%0d seed=%0d", DATA_WIDTH, seed);
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        while (!(done0 && done1 && done2 && done3) && err0 + err1 + err2 + err3 == 0 && cycles < 2000000) begin
            @(posedge clk);
            cycles = cycles + 1;
        end
        if (!(done0 && done1 && done2 && done3) && err0 + err1 + err2 + err3 == 0) begin
            $display("TB FAIL: timeout after %0d cycles (done %b%b%b%b)", cycles, done0, done1, done2, done3);
            $fatal(1);
        end
        if (err0 + err1 + err2 + err3 == 0) begin
            $display("TB PASS: %0d cycles", $time / 4);
        end else begin
            repeat (10) @(posedge clk);
            $display("TB FAIL: errors %0d %0d %0d %0d", err0, err1, err2, err3);
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
