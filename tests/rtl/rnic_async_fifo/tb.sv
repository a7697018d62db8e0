`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_axis_async_fifo testbench: three FIFOs between the same two clocks,
 * each with its own random traffic and scoreboard (fifo_env below):
 *   0: plain FIFO, 16 words (full and empty often)
 *   1: frame FIFO dropping frames that meet a full FIFO or end marked bad
 *      (a MAC's receive stream, which cannot wait), 32 words
 *   2: frame FIFO with back-pressure (store and forward toward a MAC's
 *      transmit stream), 32 words
 * Phases of clock pairs: the MAC/core ratios of the boards in both
 * directions (322.265625/250, 250/322.265625, 156.25/250, 250/156.25 MHz),
 * then random periods of 2..10 ns on each side; each phase starts from a
 * reset held on both sides, with its own random tvalid and tready rates.
 * Checks: every word leaves in order with its data, tkeep, tlast and tuser,
 * none lost or repeated; frame FIFOs deliver exactly the frames not dropped,
 * drop exactly the frames that met s_full or ended bad (one s_drop pulse
 * each), never gap level a frame on the output, keep s_axis_tready high in
 * drop mode; output words stay until taken. With both sides idle long
 * enough for the pointers to cross, the plain FIFO's flags tell the truth:
 * s_axis_tready == (words inside < 2^ADDR_WIDTH + 2), m_axis_tvalid ==
 * (words inside > 0); with the reader stopped it takes exactly
 * 2^ADDR_WIDTH + 2 words, then no more.
 * Beside them, rnic_reset_sync (4 stages) on the read clock: its output
 * rises with its input without a clock edge and falls on the 4th rising
 * edge after the input fell, never earlier.
 */
module fifo_env #(
    parameter int DATA_WIDTH = 64,
    parameter int ADDR_WIDTH = 4,
    parameter int FRAME_FIFO = 0,
    parameter int DROP = 0,
    parameter int ENV_ID = 0,
    parameter int NMAX = 40000
) (
    input  wire logic s_clk,
    input  wire logic m_clk,
    input  wire logic s_rst,
    input  wire logic m_rst,
    input  wire logic s_pause,       // the sender stops offering words
    input  wire logic m_pause,       // the receiver stops taking words
    input  wire [31:0] target,       // words to send in this phase
    input  wire [31:0] vprob,        // percent of cycles a new word is offered
    input  wire [31:0] rprob,        // percent of cycles tready is high
    input  wire [31:0] seed_in,
    output      logic done           // everything sent was delivered or dropped
);

    integer errors = 0;

    localparam int KW = DATA_WIDTH / 8;
    localparam int CAP = (1 << ADDR_WIDTH) + 2;
    // frame FIFOs: frames of at most MAXF words (the store-and-forward FIFO
    // must hold the largest frame; the dropping one sees full ones anyway)
    localparam int MAXF = 12;

    logic [DATA_WIDTH-1:0] s_tdata = '0, m_tdata;
    logic [KW-1:0]         s_tkeep = '0, m_tkeep;
    logic                  s_tvalid = 1'b0, s_tready, s_tlast = 1'b0, s_tuser = 1'b0;
    logic                  m_tvalid, m_tready = 1'b0, m_tlast, m_tuser;
    logic                  s_full, s_drop;

    rnic_axis_async_fifo #(
        .DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(1), .ADDR_WIDTH(ADDR_WIDTH), .SYNC_STAGES(2),
        .FRAME_FIFO(FRAME_FIFO), .DROP_WHEN_FULL(DROP), .DROP_BAD_FRAME(DROP)
    ) dut (
        .s_clk, .s_rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .s_full, .s_drop,
        .m_clk, .m_rst,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser)
    );

    // word k of a phase's stream, from a hash of (phase seed, k)
    function automatic logic [31:0] mix(input logic [31:0] a);
        logic [31:0] x;
        x = a ^ 32'h9e3779b9;
        x = x ^ (x >> 16); x = x * 32'h7feb352d;
        x = x ^ (x >> 15); x = x * 32'h846ca68b;
        mix = x ^ (x >> 16);
    endfunction
    function automatic logic [DATA_WIDTH-1:0] w_data(input integer s, input integer k);
        for (int i = 0; i < DATA_WIDTH / 32; i++) w_data[i*32 +: 32] = mix(s * 7919 + k * 31 + i + ENV_ID * 1000003);
    endfunction
    function automatic logic [KW-1:0] w_keep(input integer s, input integer k);
        logic [31:0] h;
        for (int i = 0; i < KW; i++) begin
            h = mix(s * 13 + k * 977 + i * 3 + 5);
            w_keep[i] = h[7];
        end
    endfunction
    // frames: tlast on about one word in six
    function automatic logic w_last(input integer s, input integer k);
        logic [31:0] h;
        h = mix(s * 101 + k + 77);
        w_last = h[2:0] == 3'd0 || h[31:28] == 4'hf;
    endfunction
    function automatic logic w_user(input integer s, input integer k);
        logic [31:0] h;
        h = mix(s * 307 + k + 11);
        w_user = h[3:0] == 4'd0;   // a bad frame when on its last word
    endfunction

    // random draws of this FIFO's traffic (reseeded at each reset)
    integer rs = 1;
    function integer rnd(input integer n);
        rnd = $unsigned($random(rs)) % n;
    endfunction

    // ------------------------------------------------------------------ sender
    integer sent = 0;            // words accepted
    integer frame_start = 0;     // first word of the frame being sent
    logic   frame_full = 1'b0;   // a word of this frame met s_full
    logic   exp_drop_pending = 1'b0;
    integer ndropped_words = 0, ndrops = 0;
    logic   dropped [NMAX];
    logic   s_done;

    assign s_done = sent >= target && (FRAME_FIFO == 0 || (sent == frame_start));

    always @(posedge s_clk) begin
        if (s_rst) begin
            s_tvalid <= 1'b0;
            sent <= 0;
            frame_start <= 0;
            frame_full <= 1'b0;
            exp_drop_pending <= 1'b0;
            ndropped_words <= 0;
            ndrops <= 0;
            rs = seed_in + ENV_ID * 7 + 1;
        end else begin
            // the pulse for the frame whose last word went in last cycle
            if (s_drop !== exp_drop_pending) begin
                $display("FAIL env%0d: s_drop %b, expected %b (sent %0d)", ENV_ID, s_drop, exp_drop_pending, sent);
                errors = errors + 1;
            end
            exp_drop_pending <= 1'b0;
            if (DROP != 0 && !s_tready && !dut.s_rst_all) begin
                $display("FAIL env%0d: s_axis_tready low in drop mode", ENV_ID);
                errors = errors + 1;
            end
            if (s_tvalid && s_tready) begin
                logic fr_full;
                fr_full = frame_full || s_full;
                dropped[sent] = 1'b0;
                sent <= sent + 1;
                if (FRAME_FIFO != 0) begin
                    frame_full <= fr_full;
                    if (s_tlast) begin
                        if (DROP != 0 && (fr_full || s_tuser)) begin
                            for (int i = frame_start; i <= sent; i++) dropped[i] = 1'b1;
                            ndropped_words <= ndropped_words + (sent + 1 - frame_start);
                            ndrops <= ndrops + 1;
                            exp_drop_pending <= 1'b1;
                        end
                        frame_start <= sent + 1;
                        frame_full <= 1'b0;
                    end
                end
            end
            if (!s_tvalid || s_tready) begin
                integer k, fs;
                k = (s_tvalid && s_tready) ? sent + 1 : sent;
                fs = (s_tvalid && s_tready && s_tlast) ? sent + 1 : frame_start;
                // a frame once begun is finished even past the target
                if (!s_pause && (k < target || (FRAME_FIFO != 0 && k != frame_start && !(s_tvalid && s_tready && s_tlast)))
                    && rnd(100) < vprob) begin
                    s_tvalid <= 1'b1;
                    s_tdata <= w_data(seed_in, k);
                    s_tkeep <= w_keep(seed_in, k);
                    s_tlast <= w_last(seed_in, k) || (FRAME_FIFO != 0 && k - fs + 1 >= MAXF);
                    s_tuser <= w_user(seed_in, k);
                end else begin
                    s_tvalid <= 1'b0;
                end
            end
        end
    end

    // ---------------------------------------------------------------- receiver
    integer got = 0;             // next word expected (index into the sent stream)
    integer rframe = 0;          // first word of the frame being received
    integer delivered = 0;
    logic   in_frame = 1'b0;
    logic   held = 1'b0;         // an output word waiting to be taken last cycle
    logic [DATA_WIDTH+KW+1:0] held_word;

    always @(posedge m_clk) begin
        if (m_rst) begin
            m_tready <= 1'b0;
            got <= 0;
            delivered <= 0;
            in_frame <= 1'b0;
            held <= 1'b0;
            rframe <= 0;
        end else begin
            integer g, rf;
            g = got;
            rf = rframe;
            if (held && (!m_tvalid || {m_tdata, m_tkeep, m_tlast, m_tuser} !== held_word)) begin
                $display("FAIL env%0d: an output word changed or vanished before it was taken", ENV_ID);
                errors = errors + 1;
            end
            if (FRAME_FIFO != 0 && in_frame && !m_tvalid) begin
                $display("FAIL env%0d: gap level a frame on the output (word %0d)", ENV_ID, g);
                errors = errors + 1;
            end
            held <= m_tvalid && !m_tready;
            held_word <= {m_tdata, m_tkeep, m_tlast, m_tuser};
            if (m_tvalid && m_tready) begin
                while (DROP != 0 && g < sent && dropped[g]) g = g + 1;
                if (!in_frame) rf = g;
                if (g >= sent) begin
                    $display("FAIL env%0d: word out that was never accepted (expected index %0d, sent %0d)", ENV_ID, g, sent);
                    errors = errors + 1;
                end else if (m_tdata !== w_data(seed_in, g) || m_tkeep !== w_keep(seed_in, g) ||
                             m_tuser !== w_user(seed_in, g) ||
                             m_tlast !== (w_last(seed_in, g) || (FRAME_FIFO != 0 && g - rf + 1 >= MAXF))) begin
                    $display("FAIL env%0d: word %0d differs (lost, repeated or corrupted)", ENV_ID, g);
                    errors = errors + 1;
                end
                g = g + 1;
                delivered <= delivered + 1;
                in_frame <= !m_tlast;
            end
            got <= g;
            rframe <= rf;
            m_tready <= !m_pause && rnd(100) < rprob;
        end
    end

    wire signed [31:0] level = sent - delivered - ndropped_words;   // words inside
    assign done = s_done && !s_rst && !m_rst && level == 0 && !m_tvalid;

    // ------------------------------------------------------------- flag checks
    // called by the top with both sides idle long enough
    task automatic check_flags(input string what);
        if (FRAME_FIFO == 0) begin
            if (s_tready !== (level < CAP)) begin
                $display("FAIL env%0d %s: s_axis_tready %b with %0d words inside (capacity %0d)", ENV_ID, what, s_tready, level, CAP);
                errors = errors + 1;
            end
            if (m_tvalid !== (level > 0)) begin
                $display("FAIL env%0d %s: m_axis_tvalid %b with %0d words inside", ENV_ID, what, m_tvalid, level);
                errors = errors + 1;
            end
            if (s_full !== !s_tready) begin
                $display("FAIL env%0d %s: s_full %b, s_axis_tready %b", ENV_ID, what, s_full, s_tready);
                errors = errors + 1;
            end
        end
    endtask

endmodule

module tb;
    parameter int DATA_WIDTH = 64;

    integer seed = 1;
    real s_half = 2.0, m_half = 2.0;
    logic s_clk = 1'b0, m_clk = 1'b0;
    logic s_rst = 1'b1, m_rst = 1'b1;
    logic s_pause = 1'b0, m_pause = 1'b0;
    integer target = 0, vprob = 100, rprob = 100, pseed = 1;
    logic [2:0] done;
    integer top_errors = 0;

    always #(s_half) s_clk = ~s_clk;
    always #(m_half) m_clk = ~m_clk;

    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(4), .FRAME_FIFO(0), .DROP(0), .ENV_ID(0)) env0 (
        .s_clk, .m_clk, .s_rst, .m_rst, .s_pause, .m_pause, .target, .vprob, .rprob, .seed_in(pseed),
        .done(done[0]));
    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(5), .FRAME_FIFO(1), .DROP(1), .ENV_ID(1)) env1 (
        .s_clk, .m_clk, .s_rst, .m_rst, .s_pause, .m_pause, .target, .vprob, .rprob, .seed_in(pseed),
        .done(done[1]));
    fifo_env #(.DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(5), .FRAME_FIFO(1), .DROP(0), .ENV_ID(2)) env2 (
        .s_clk, .m_clk, .s_rst, .m_rst, .s_pause, .m_pause, .target, .vprob, .rprob, .seed_in(pseed),
        .done(done[2]));

    // the reset synchronizer
    logic rs_in = 1'b0, rs_out;
    rnic_reset_sync #(.STAGES(4)) rs_inst (.clk(m_clk), .rst_in(rs_in), .rst_out(rs_out));

    task automatic check_reset_sync();
        // asserted between clock edges: the output follows at once
        @(posedge m_clk) #(m_half / 2.0);
        rs_in = 1'b1;
        #0.001;
        if (rs_out !== 1'b1) begin
            $display("FAIL rnic_reset_sync: output %b right after the input rose, want 1", rs_out);
            top_errors = top_errors + 1;
        end
        #(m_half);
        rs_in = 1'b0;
        for (int e = 1; e <= 4; e++) begin
            @(posedge m_clk) #0.001;
            if (rs_out !== (e < 4)) begin
                $display("FAIL rnic_reset_sync: output %b %0d edges after the input fell", rs_out, e);
                top_errors = top_errors + 1;
            end
        end
    endtask

    function automatic integer total_errors();
        total_errors = top_errors + env0.errors + env1.errors + env2.errors;
    endfunction

    function integer trnd(input integer n);
        trnd = $unsigned($random(seed)) % n;
    endfunction

    // idle both sides for n cycles of the slower clock
    task automatic settle(input integer n);
        real slow;
        slow = s_half > m_half ? s_half : m_half;
        #(2.0 * slow * n);
    endtask

    integer nphases = 10;
    integer words_per_phase;
    integer drops_total = 0, delivered_total = 0;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        words_per_phase = DATA_WIDTH == 512 ? 1500 : 3000;
        for (int ph = 0; ph < nphases && total_errors() == 0; ph++) begin
            real sp, mp;
            integer t0;
            case (ph)
                0: begin sp = 1000.0 / 322.265625; mp = 1000.0 / 250.0; end
                1: begin sp = 1000.0 / 250.0; mp = 1000.0 / 322.265625; end
                2: begin sp = 1000.0 / 156.25; mp = 1000.0 / 250.0; end
                3: begin sp = 1000.0 / 250.0; mp = 1000.0 / 156.25; end
                default: begin
                    sp = 2.0 + (trnd(8001)) / 1000.0;
                    mp = 2.0 + (trnd(8001)) / 1000.0;
                end
            endcase
            // reset both sides (long enough for both clocks), new clocks
            s_rst = 1'b1; m_rst = 1'b1;
            s_pause = 1'b0; m_pause = 1'b0;
            settle(8);
            s_half = sp / 2.0; m_half = mp / 2.0;
            pseed = $random(seed);
            target = words_per_phase;
            vprob = (ph % 3 == 0) ? 100 : 20 + trnd(81);
            rprob = (ph % 4 == 1) ? 100 : 10 + trnd(91);
            settle(8);
            @(posedge s_clk) s_rst = 1'b0;
            @(posedge m_clk) m_rst = 1'b0;
            check_reset_sync();
            $display("phase %0d: write %.3f MHz, read %.3f MHz, tvalid %0d%%, tready %0d%%",
                     ph, 1000.0 / sp, 1000.0 / mp, vprob, rprob);
            // the reader stopped: the plain FIFO takes exactly its capacity
            m_pause = 1'b1;
            settle(200);
            s_pause = 1'b1;
            settle(12);
            if (env0.level != (1 << 4) + 2) begin
                $display("FAIL phase %0d: with the reader stopped the plain FIFO took %0d words, capacity %0d",
                         ph, env0.level, (1 << 4) + 2);
                top_errors = top_errors + 1;
            end
            env0.check_flags("reader stopped");
            s_pause = 1'b0; m_pause = 1'b0;
            // run, with idle checks at random moments
            t0 = 0;
            while (done != 3'b111) begin
                settle(20 + trnd(200));
                t0 = t0 + 1;
                if (trnd(3) == 0) begin
                    s_pause = 1'b1; m_pause = trnd(2) == 0;
                    settle(12);
                    env0.check_flags("idle");
                    s_pause = 1'b0; m_pause = 1'b0;
                end
                if (t0 > 20000) begin
                    $display("FAIL phase %0d: no progress (done %b, level %0d %0d %0d)", ph, done,
                             env0.level, env1.level, env2.level);
                    $display("TB FAIL");
                    $finish;
                end
            end
            drops_total = drops_total + env1.ndrops;
            delivered_total = delivered_total + env0.delivered + env1.delivered + env2.delivered;
            $display("  done at %0t: words out %0d / %0d / %0d, frames dropped %0d (%0d words)", $time,
                     env0.delivered, env1.delivered, env2.delivered, env1.ndrops, env1.ndropped_words);
        end
        if (drops_total == 0) begin
            $display("FAIL: the dropping FIFO never dropped a frame (the test did not reach it)");
            top_errors = top_errors + 1;
        end
        if (total_errors() == 0) $display("TB PASS (%0d words delivered, %0d frames dropped)", delivered_total, drops_total);
        else $display("TB FAIL (%0d errors)", total_errors());
        $finish;
    end
endmodule

`resetall
