`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_pay_src testbench.
 *
 * Packets of two kinds in random order: DMA packets (1..4 descriptors of
 * 1..300 bytes, the last one marked last) and inline packets (1..64 bytes
 * carried by the descriptor). A behavioural DMA engine takes DMA descriptors
 * at random, returns each address's byte pattern as a packed stream with
 * random tvalid gaps, and sends a packet's first full beats before its last
 * descriptor has been accepted. Random m_axis_tready throughout. The
 * scoreboard checks every output byte and each packet's length and order,
 * that only DMA descriptors reach the DMA engine with their fields intact,
 * that every non-last beat is full, and that an offered beat holds until it
 * is taken. A throughput phase (no gaps, tready always 1) checks that inline
 * packets leave back to back at one beat per cycle.
 */
module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;
    localparam int INL = 64;
    localparam int MEM = 1 << 20;
    localparam int MAXP = 1 << 14;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [63:0]        s_desc_addr = '0;
    logic [31:0]        s_desc_len = '0;
    logic               s_desc_last = 1'b0, s_desc_inline = 1'b0, s_desc_valid = 1'b0;
    logic [8*INL-1:0]   s_desc_inl_data = '0;
    logic               s_desc_ready;
    logic [63:0]        m_dma_desc_addr;
    logic [31:0]        m_dma_desc_len;
    logic               m_dma_desc_last, m_dma_desc_valid;
    logic               m_dma_desc_ready = 1'b0;
    logic [DATA_WIDTH-1:0] s_dma_tdata = '0;
    logic [KW-1:0]      s_dma_tkeep = '0;
    logic               s_dma_tvalid = 1'b0, s_dma_tlast = 1'b0;
    logic               s_dma_tready;
    logic [DATA_WIDTH-1:0] m_axis_tdata;
    logic [KW-1:0]      m_axis_tkeep;
    logic               m_axis_tvalid, m_axis_tlast;
    logic               m_axis_tready = 1'b0;

    rnic_pay_src #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk, .rst,
        .s_desc_addr, .s_desc_len, .s_desc_last, .s_desc_inline, .s_desc_inl_data, .s_desc_valid, .s_desc_ready,
        .m_dma_desc_addr, .m_dma_desc_len, .m_dma_desc_last, .m_dma_desc_valid, .m_dma_desc_ready,
        .s_dma_tdata, .s_dma_tkeep, .s_dma_tvalid, .s_dma_tready, .s_dma_tlast,
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast
    );

    integer seed = 1;
    integer errors = 0;
    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction
    function automatic logic [7:0] pat(input logic [63:0] a);
        pat = a[7:0] ^ a[15:8] ^ 8'h5a;
    endfunction

    integer gap_pct = 30, ready_pct = 70, dma_ready_pct = 60;
    logic   fast = 1'b0;

    // expected output: bytes of all packets, and each packet's length
    logic [7:0] exp_mem [MEM];
    integer     exp_len [MAXP];
    integer     exp_bytes = 0, exp_pkts = 0;
    // what the DMA engine owes: bytes and packet ends
    logic [7:0] dma_mem [MEM];
    logic       dma_end [MEM];   // byte i ends a packet
    integer     dma_wr = 0, dma_rd = 0;

    task automatic offer(input logic [63:0] a, input logic [31:0] l, input logic last, input logic inl,
                         input logic [8*INL-1:0] d);
        while (!fast && rnd(100) < gap_pct) begin
            s_desc_valid <= 1'b0;
            @(posedge clk);
        end
        s_desc_addr <= a; s_desc_len <= l; s_desc_last <= last; s_desc_inline <= inl;
        s_desc_inl_data <= d; s_desc_valid <= 1'b1;
        @(posedge clk);
        while (!s_desc_ready) @(posedge clk);
        s_desc_valid <= 1'b0;
    endtask

    task automatic send_inline(input integer len);
        logic [8*INL-1:0] d;
        for (int i = 0; i < INL / 4; i++) d[32*i +: 32] = $random(seed);
        for (int i = 0; i < len; i++) exp_mem[(exp_bytes + i) % MEM] = d[8*i +: 8];
        exp_len[exp_pkts % MAXP] = len;
        exp_bytes = exp_bytes + len;
        exp_pkts = exp_pkts + 1;
        offer(64'h0, 32'(len), 1'b1, 1'b1, d);
    endtask

    task automatic send_packet(input logic inl);
        integer len, n, pieces, start;
        logic [63:0] a;
        start = exp_bytes;
        if (inl) begin
            send_inline(1 + rnd(INL));
        end else begin
            pieces = 1 + rnd(4);
            len = 0;
            exp_len[exp_pkts % MAXP] = 0;
            exp_pkts = exp_pkts + 1;
            for (int p = 0; p < pieces; p++) begin
                n = 1 + rnd(300);
                a = {32'h0, $random(seed)} & 64'h0000_0000_00ff_ffff;
                for (int i = 0; i < n; i++) exp_mem[(start + len + i) % MEM] = pat(a + 64'(i));
                len = len + n;
                exp_len[(exp_pkts - 1) % MAXP] = len;
                exp_bytes = exp_bytes + n;
                offer(a, 32'(n), p == pieces - 1, 1'b0, {8*INL{1'bx}});
            end
        end
    endtask

    // behavioural DMA engine: descriptors in, packed bytes out
    always @(posedge clk) begin
        if (!rst && m_dma_desc_valid && m_dma_desc_ready) begin
            for (int i = 0; i < m_dma_desc_len; i++) begin
                dma_mem[(dma_wr + i) % MEM] = pat(m_dma_desc_addr + 64'(i));
                dma_end[(dma_wr + i) % MEM] = m_dma_desc_last && i == m_dma_desc_len - 1;
            end
            dma_wr = dma_wr + m_dma_desc_len;
        end
        m_dma_desc_ready <= fast || rnd(100) < dma_ready_pct;
    end

    // the DMA's output beat: KW bytes, or fewer up to a packet end
    integer beat_n;
    logic   beat_end;
    always @(posedge clk) begin
        if (!rst && s_dma_tvalid && s_dma_tready) begin
            dma_rd = dma_rd + beat_n;
            s_dma_tvalid <= 1'b0;
        end
        if (!rst && (!s_dma_tvalid || s_dma_tready) && (fast || rnd(100) >= gap_pct)) begin
            beat_n = 0;
            beat_end = 1'b0;
            while (beat_n < KW && dma_rd + beat_n < dma_wr && !beat_end) begin
                beat_end = dma_end[(dma_rd + beat_n) % MEM];
                beat_n = beat_n + 1;
            end
            if (beat_n == KW || beat_end) begin
                for (int i = 0; i < KW; i++) s_dma_tdata[8*i +: 8] <= i < beat_n ? dma_mem[(dma_rd + i) % MEM] : 8'hxx;
                s_dma_tkeep <= KW'(({{KW{1'b0}}, 1'b1} << beat_n) - 1);
                s_dma_tlast <= beat_end;
                s_dma_tvalid <= 1'b1;
            end
        end
    end

    // sink and scoreboard
    integer rx_bytes = 0, rx_pkts = 0, cur = 0, n_keep;
    integer beats = 0, busy_cycles = 0, cycle = 0, first_beat = -1, last_beat = -1;
    logic hold_reg = 1'b0;
    logic [DATA_WIDTH-1:0] hold_data;
    logic [KW-1:0] hold_keep;
    logic hold_last;
    always @(posedge clk) begin
        if (!rst && hold_reg && (!m_axis_tvalid || m_axis_tdata !== hold_data || m_axis_tkeep !== hold_keep
                                 || m_axis_tlast !== hold_last)) begin
            $display("TB FAIL: output beat changed or withdrawn before it was taken");
            errors = errors + 1;
        end
        hold_reg <= m_axis_tvalid && !m_axis_tready;
        hold_data <= m_axis_tdata; hold_keep <= m_axis_tkeep; hold_last <= m_axis_tlast;
        if (!rst && m_axis_tvalid) busy_cycles = busy_cycles + 1;
        cycle = cycle + 1;
        if (!rst && m_axis_tvalid && m_axis_tready) begin
            beats = beats + 1;
            if (fast && first_beat < 0) first_beat = cycle;
            last_beat = cycle;
            n_keep = 0;
            for (int i = 0; i < KW; i++) if (m_axis_tkeep[i]) n_keep = n_keep + 1;
            if (m_axis_tkeep != KW'(({{KW{1'b0}}, 1'b1} << n_keep) - 1) || (!m_axis_tlast && n_keep != KW)) begin
                $display("TB FAIL: packet %0d: tkeep %h (last %0d)", rx_pkts, m_axis_tkeep, m_axis_tlast);
                errors = errors + 1;
            end
            for (int i = 0; i < n_keep; i++)
                if (m_axis_tdata[8*i +: 8] !== exp_mem[(rx_bytes + cur + i) % MEM]) begin
                    if (errors < 10)
                        $display("TB FAIL: packet %0d byte %0d: %h, expected %h", rx_pkts, cur + i,
                                 m_axis_tdata[8*i +: 8], exp_mem[(rx_bytes + cur + i) % MEM]);
                    errors = errors + 1;
                end
            cur = cur + n_keep;
            if (m_axis_tlast) begin
                if (rx_pkts >= exp_pkts || cur != exp_len[rx_pkts % MAXP]) begin
                    $display("TB FAIL: packet %0d: %0d bytes, expected %0d", rx_pkts, cur, exp_len[rx_pkts % MAXP]);
                    errors = errors + 1;
                end
                rx_bytes = rx_bytes + cur;
                rx_pkts = rx_pkts + 1;
                cur = 0;
            end
            if (errors > 20) $fatal(1, "TB FAIL: too many errors");
        end
        m_axis_tready <= fast || rnd(100) < ready_pct;
    end

    integer t0_beats, t0_busy;
    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (5) @(posedge clk);
        rst <= 1'b0;
        for (int k = 0; k < 3000; k++) send_packet(rnd(100) < 45);
        // runs of one kind: the order FIFO and the inline FIFO fill up
        for (int k = 0; k < 200; k++) send_packet(1'b1);
        for (int k = 0; k < 200; k++) send_packet(1'b0);
        while (rx_pkts < exp_pkts) @(posedge clk);
        // throughput: inline packets of 64 bytes back to back
        fast = 1'b1;
        repeat (10) @(posedge clk);
        t0_beats = beats; t0_busy = busy_cycles;
        for (int k = 0; k < 100; k++) send_inline(INL);
        while (rx_pkts < exp_pkts) @(posedge clk);
        if (beats - t0_beats != 100 * ((INL + KW - 1) / KW) || busy_cycles - t0_busy != beats - t0_beats
            || last_beat - first_beat + 1 > beats - t0_beats + 2) begin
            $display("TB FAIL: inline throughput: %0d beats in %0d valid cycles, %0d cycles from first to last",
                     beats - t0_beats, busy_cycles - t0_busy, last_beat - first_beat + 1);
            errors = errors + 1;
        end
        repeat (20) @(posedge clk);
        if (dma_rd != dma_wr) begin
            $display("TB FAIL: %0d DMA bytes never taken", dma_wr - dma_rd);
            errors = errors + 1;
        end
        $display("%0d packets, %0d bytes, %0d errors", rx_pkts, rx_bytes, errors);
        if (errors == 0) $display("TB PASS");
        else $fatal(1, "TB FAIL: %0d errors", errors);
        $finish;
    end

    initial begin
        #200000000;
        $fatal(1, "TB FAIL: timeout");
    end
endmodule
