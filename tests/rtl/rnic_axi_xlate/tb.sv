`timescale 1ns / 1ps
`default_nettype none

// rnic_axi_xlate: random AR and AW bursts, half of them in MTT space (bit
// MPT_PA_MTT_BIT set), random valid gaps on both inputs and the write data,
// random ready on every output. Checks: each burst leaves once, in order,
// with every side field unchanged; an MTT-space address comes out as its
// entry's page with the byte offset kept, any other address unchanged; no W
// beat moves before its burst's AW, and W beats pass unchanged and in order.
// The MTT is written at reset and rewritten between traffic phases, so a
// stale entry would show.
module tb #(parameter int DATA_WIDTH = 64);
    localparam int KW = DATA_WIDTH / 8;
    localparam int IDW = 4;
    localparam int MIW = 6;
    localparam int SIDE_W = IDW + 8 + 3 + 2 + 1 + 4 + 3;
    localparam int XBIT = rnic_pkg::MPT_PA_MTT_BIT;
    localparam int PS = rnic_pkg::MTT_PAGE_SHIFT;
    localparam int N_BURSTS = 3000;
    localparam int PHASES = 3;

    logic clk = 0, rst = 1;
    always #5 clk = ~clk;
    int seed, errors;

    logic mtt_wr_en;
    logic [MIW-1:0] mtt_wr_addr;
    logic [rnic_pkg::MTT_BITS-1:0] mtt_wr_data;
    logic [rnic_pkg::MTT_BITS-1:0] mtt_ref [2**MIW];

    // inputs (AR = channel 0, AW = channel 1) and outputs
    logic [IDW-1:0] s_id [2];
    logic [63:0] s_addr [2];
    logic [SIDE_W-IDW-1:0] s_rest [2];
    logic s_valid [2], s_ready [2];
    logic [IDW-1:0] m_id [2];
    logic [63:0] m_addr [2];
    logic [SIDE_W-IDW-1:0] m_rest [2];
    logic m_valid [2], m_ready [2];
    logic [DATA_WIDTH-1:0] s_wdata, m_wdata;
    logic [KW-1:0] s_wstrb, m_wstrb;
    logic s_wlast, s_wvalid, s_wready, m_wlast, m_wvalid, m_wready;

    rnic_axi_xlate #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(IDW), .MTT_INDEX_WIDTH(MIW)) dut (
        .clk, .rst, .mtt_wr_en, .mtt_wr_addr, .mtt_wr_data,
        .s_axi_arid(s_id[0]), .s_axi_araddr(s_addr[0]),
        .s_axi_arlen(s_rest[0][20:13]), .s_axi_arsize(s_rest[0][12:10]), .s_axi_arburst(s_rest[0][9:8]),
        .s_axi_arlock(s_rest[0][7]), .s_axi_arcache(s_rest[0][6:3]), .s_axi_arprot(s_rest[0][2:0]),
        .s_axi_arvalid(s_valid[0]), .s_axi_arready(s_ready[0]),
        .m_axi_arid(m_id[0]), .m_axi_araddr(m_addr[0]),
        .m_axi_arlen(m_rest[0][20:13]), .m_axi_arsize(m_rest[0][12:10]), .m_axi_arburst(m_rest[0][9:8]),
        .m_axi_arlock(m_rest[0][7]), .m_axi_arcache(m_rest[0][6:3]), .m_axi_arprot(m_rest[0][2:0]),
        .m_axi_arvalid(m_valid[0]), .m_axi_arready(m_ready[0]),
        .s_axi_awid(s_id[1]), .s_axi_awaddr(s_addr[1]),
        .s_axi_awlen(s_rest[1][20:13]), .s_axi_awsize(s_rest[1][12:10]), .s_axi_awburst(s_rest[1][9:8]),
        .s_axi_awlock(s_rest[1][7]), .s_axi_awcache(s_rest[1][6:3]), .s_axi_awprot(s_rest[1][2:0]),
        .s_axi_awvalid(s_valid[1]), .s_axi_awready(s_ready[1]),
        .m_axi_awid(m_id[1]), .m_axi_awaddr(m_addr[1]),
        .m_axi_awlen(m_rest[1][20:13]), .m_axi_awsize(m_rest[1][12:10]), .m_axi_awburst(m_rest[1][9:8]),
        .m_axi_awlock(m_rest[1][7]), .m_axi_awcache(m_rest[1][6:3]), .m_axi_awprot(m_rest[1][2:0]),
        .m_axi_awvalid(m_valid[1]), .m_axi_awready(m_ready[1]),
        .s_axi_wdata(s_wdata), .s_axi_wstrb(s_wstrb), .s_axi_wlast(s_wlast), .s_axi_wvalid(s_wvalid),
        .s_axi_wready(s_wready),
        .m_axi_wdata(m_wdata), .m_axi_wstrb(m_wstrb), .m_axi_wlast(m_wlast), .m_axi_wvalid(m_wvalid),
        .m_axi_wready(m_wready)
    );

    // expected output of each channel, in order
    logic [SIDE_W+63:0] exp_ar_q [$], exp_aw_q [$];
    // write bursts: beats of each AW, and the W beats expected out, in order
    int w_beats_q [$];
    logic [DATA_WIDTH+KW:0] w_exp_q [$];
    int sent [2], got [2], aw_out, wlast_out, w_in_beats, w_out_beats;
    logic traffic;

    function automatic logic [63:0] rnd64();
        return {$urandom(seed), $urandom(seed)};
    endfunction

    function automatic logic [63:0] xlate(input logic [63:0] a);
        if (!a[XBIT]) return a;
        return {mtt_ref[a[PS +: MIW]], a[PS-1:0]};
    endfunction

    // a new burst on channel c; its expected output is computed now, from the
    // MTT as it stands (the MTT only changes between phases)
    task automatic new_burst(input int c);
        logic [63:0] a;
        a = rnd64();
        a[XBIT] = $urandom(seed) % 2;
        s_addr[c] = a;
        s_id[c] = IDW'($urandom(seed));
        s_rest[c] = (SIDE_W-IDW)'($urandom(seed));
        if (c == 1) s_rest[c][20:13] = 8'($urandom(seed) % 6);  // short bursts keep W moving
        if (c == 0) exp_ar_q.push_back({s_id[c], s_rest[c], xlate(a)});
        else exp_aw_q.push_back({s_id[c], s_rest[c], xlate(a)});
        if (c == 1) begin
            w_beats_q.push_back(int'(s_rest[c][20:13]) + 1);
        end
    endtask

    // input drivers
    int w_left;
    always @(posedge clk) begin
        if (!rst) begin
            for (int c = 0; c < 2; c++) begin
                if (s_valid[c] && s_ready[c]) begin
                    sent[c]++;
                    s_valid[c] <= 1'b0;
                end
            end
        end
    end

    always @(negedge clk) begin
        if (!rst && traffic) begin
            for (int c = 0; c < 2; c++) begin
                // AWs run at most 64 bursts ahead of their data (the
                // translator counts 255 open bursts at most)
                if (!s_valid[c] && sent[c] < N_BURSTS && $urandom(seed) % 3 != 0 &&
                    (c == 0 || w_beats_q.size() < 64)) begin
                    new_burst(c);
                    s_valid[c] = 1'b1;
                end
            end
        end
        for (int c = 0; c < 2; c++) m_ready[c] = $urandom(seed) % 4 != 0;
        m_wready = $urandom(seed) % 3 != 0;
        // write data: beats of the AWs given to the DUT so far, with gaps
        if (!rst && !s_wvalid && $urandom(seed) % 4 != 0) begin
            if (w_left == 0 && w_beats_q.size() > 0) w_left = w_beats_q.pop_front();
            if (w_left > 0) begin
                s_wdata = {(DATA_WIDTH / 32 + 1){$urandom(seed)}};
                s_wstrb = KW'(rnd64());
                s_wlast = w_left == 1;
                s_wvalid = 1'b1;
                w_exp_q.push_back({s_wdata, s_wstrb, s_wlast});
                w_left--;
            end
        end
    end

    always @(posedge clk) begin
        if (s_wvalid && s_wready) begin
            w_in_beats++;
            s_wvalid <= 1'b0;
        end
    end

    // output checks
    always @(posedge clk) begin
        if (!rst) begin
            for (int c = 0; c < 2; c++) begin
                if (m_valid[c] && m_ready[c]) begin
                    logic [SIDE_W+63:0] e;
                    if ((c == 0 ? exp_ar_q.size() : exp_aw_q.size()) == 0) begin
                        $display("ERROR ch%0d: burst out with none expected", c);
                        errors++;
                    end else begin
                        e = c == 0 ? exp_ar_q.pop_front() : exp_aw_q.pop_front();
                        if (e !== {m_id[c], m_rest[c], m_addr[c]}) begin
                            $display("ERROR ch%0d burst %0d: got id %h side %h addr %h, expected id %h side %h addr %h",
                                     c, got[c], m_id[c], m_rest[c], m_addr[c],
                                     e[SIDE_W+63 -: IDW], e[63+SIDE_W-IDW:64], e[63:0]);
                            errors++;
                        end
                    end
                    got[c]++;
                    if (c == 1) aw_out++;
                end
            end
            if (m_wvalid && m_wready) begin
                logic [DATA_WIDTH+KW:0] e;
                e = w_exp_q.pop_front();
                if (e !== {m_wdata, m_wstrb, m_wlast}) begin
                    $display("ERROR W beat %0d changed on the way", w_out_beats);
                    errors++;
                end
                // a beat may move only while a burst whose AW has gone out is open
                if (wlast_out >= aw_out) begin
                    $display("ERROR W beat %0d before its AW (%0d AWs out, %0d bursts done)",
                             w_out_beats, aw_out, wlast_out);
                    errors++;
                end
                w_out_beats++;
                if (m_wlast) wlast_out++;
            end
        end
    end

    task automatic write_mtt;
        logic [63:0] r;
        for (int i = 0; i < 2**MIW; i++) begin
            @(negedge clk);
            r = rnd64();
            mtt_ref[i] = r[rnic_pkg::MTT_BITS-1:0];
            mtt_wr_en = 1'b1;
            mtt_wr_addr = MIW'(i);
            mtt_wr_data = mtt_ref[i];
        end
        @(negedge clk);
        mtt_wr_en = 1'b0;
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        errors = 0;
        traffic = 1'b0;
        mtt_wr_en = 1'b0;
        w_left = 0;
        for (int c = 0; c < 2; c++) begin
            s_valid[c] = 1'b0; sent[c] = 0; got[c] = 0;
        end
        s_wvalid = 1'b0;
        aw_out = 0; wlast_out = 0; w_in_beats = 0; w_out_beats = 0;
        repeat (5) @(posedge clk);
        rst = 0;
        for (int ph = 0; ph < PHASES; ph++) begin
            write_mtt();
            for (int c = 0; c < 2; c++) begin
                sent[c] = 0;
            end
            traffic = 1'b1;
            for (int t = 0; t < 200000 && (sent[0] < N_BURSTS || sent[1] < N_BURSTS ||
                 exp_ar_q.size() || exp_aw_q.size() || w_exp_q.size() || w_left || w_beats_q.size()); t++)
                @(posedge clk);
            traffic = 1'b0;
            if (exp_ar_q.size() || exp_aw_q.size() || w_exp_q.size()) begin
                $display("ERROR phase %0d: traffic did not drain (%0d AR, %0d AW, %0d W left)",
                         ph, exp_ar_q.size(), exp_aw_q.size(), w_exp_q.size());
                errors++;
            end
            repeat (4) @(posedge clk);
        end
        $display("%0d AR and %0d AW bursts, %0d W beats through the translator", got[0], got[1], w_out_beats);
        if (got[0] != PHASES * N_BURSTS || got[1] != PHASES * N_BURSTS || w_out_beats != w_in_beats) begin
            $display("ERROR burst or beat count off");
            errors++;
        end
        if (errors == 0) $display("TB PASS");
        else $fatal(1, "TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
