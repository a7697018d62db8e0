`timescale 1ns / 1ps
`default_nettype none

// The control processor (rnic_ctrl: PicoRV32 + RAM) running echo_fw.S against
// the register file (rnic_regs), with the host on the AXI4-Lite port at random
// delays and ready gaps. Checks: the firmware boots (FW_STATE); the block chain
// includes the command block; commands with random inputs come back with the
// firmware's answer, status and token while the host polls CMD_STATUS (so both
// ports contend for the decoder); writes while busy are ignored and flagged
// (overrun); the host may not write the firmware's registers; the firmware
// programs the context window; a bad firmware access halts it (CMD_STATUS bit 2).
// The WQE window: DB_SQ_WQE rings the SQ doorbell and presents the 32 words
// written to DB_WQE with the QPN and SQ index (producer index - 1, wrapping);
// a write to any word of the window, or wqe_win_clear, withdraws it.
// The context write waits for ctx_wr_ready (random, and held off for a while
// once): it is taken exactly once, its command and data do not change while
// it waits, and the firmware's next register write (CMD_DONE) waits with it.
module tb #(parameter int DATA_WIDTH = 64, parameter int RAM_RD_STAGE = 0);
    localparam int N_CMDS = 24;

    logic clk = 0, rst = 1;
    always #5 clk = ~clk;
    int seed, errors;

    logic [15:0] awaddr, araddr;
    logic awvalid, awready, wvalid, wready, bvalid, bready, arvalid, arready, rvalid, rready;
    logic [31:0] wdata, rdata;
    logic [1:0] bresp, rresp;
    logic ctx_wr_valid, ctx_wr_ready, ctx_block;
    logic ctx_wr_busy = 1'b0;   // a taken write on its way to its table
    int   ctx_takes, ctx_seed;
    logic [3:0] ctx_wr_table, ctx_wr_op;
    logic [23:0] ctx_wr_index;
    logic [32*32-1:0] ctx_wr_data;
    logic fw_valid, fw_we, fw_ready, fw_err, trap, bus_err;
    logic [15:0] fw_addr;
    logic [31:0] fw_wdata, fw_rdata;
    logic [47:0] mac;
    logic [4*128-1:0] gid;
    logic sqv, rqv, cqv;
    logic [15:0] sqq, sqp, rqq, rqp, cqc, cqi;
    logic win_valid, win_clear;
    logic [15:0] win_qpn, win_idx;
    logic [1023:0] win_data;

    // the counters' increments, driven by stats_check
    localparam int STATS = (rnic_pkg::BLK_STAT_END - rnic_pkg::REG_STAT_TX_FRAMES) / 4;
    logic [STATS*16-1:0] stat_inc = '0;

    rnic_regs #(.DATA_WIDTH(DATA_WIDTH), .QPN_WIDTH(4), .MR_INDEX_WIDTH(4), .CQN_WIDTH(4),
                .MTT_INDEX_WIDTH(4)) regs (
        .clk, .rst,
        .s_axil_awaddr(awaddr), .s_axil_awprot(3'h0), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
        .s_axil_wdata(wdata), .s_axil_wstrb(4'hf), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
        .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
        .s_axil_araddr(araddr), .s_axil_arprot(3'h0), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
        .cfg_port_mac(mac), .cfg_gid(gid),
        .ctx_wr_valid, .ctx_wr_ready, .ctx_wr_table, .ctx_wr_op, .ctx_wr_index, .ctx_wr_data, .ctx_wr_busy,
        .db_sq_valid(sqv), .db_sq_ready(1'b1), .db_sq_qpn(sqq), .db_sq_pi(sqp),
        .db_rq_valid(rqv), .db_rq_ready(1'b1), .db_rq_qpn(rqq), .db_rq_pi(rqp),
        .db_cq_valid(cqv), .db_cq_cqn(cqc), .db_cq_ci(cqi),
        .wqe_win_valid(win_valid), .wqe_win_new(), .wqe_win_qpn(win_qpn), .wqe_win_idx(win_idx), .wqe_win_data(win_data),
        .wqe_win_clear(win_clear),
        .stat_inc,
        .fw_valid, .fw_we, .fw_addr, .fw_wdata, .fw_ready, .fw_err, .fw_rdata,
        .fw_halted(trap || bus_err),
        .evt_word(32'h0), .evt_pop(),
        .mw_req_valid(1'b0), .mw_req_data('0), .mw_ans_valid(), .mw_ans_status()
    );

    rnic_ctrl #(.RAM_BYTES(4096), .RAM_RD_STAGE(RAM_RD_STAGE), .FW_HEX("echo_fw.hex")) ctrl (
        .clk, .rst,
        .fw_valid, .fw_we, .fw_addr, .fw_wdata, .fw_ready, .fw_err, .fw_rdata,
        .status_trap(trap), .status_bus_err(bus_err)
    );

    // ---------------------------------------------------- host accesses
    task automatic gap;
        repeat ($urandom(seed) % 4) @(posedge clk);
    endtask

    task automatic host_write(input logic [15:0] a, input logic [31:0] d, output logic [1:0] resp);
        gap();
        awaddr <= a; wdata <= d; awvalid <= 1'b1; wvalid <= 1'b1;
        do @(posedge clk); while (!(awready && wready));
        awvalid <= 1'b0; wvalid <= 1'b0;
        gap();
        bready <= 1'b1;
        do @(posedge clk); while (!bvalid);
        resp = bresp;
        bready <= 1'b0;
    endtask

    logic [1:0] last_rresp;   // the last host read's response
    task automatic host_read(input logic [15:0] a, output logic [31:0] d);
        gap();
        araddr <= a; arvalid <= 1'b1;
        do @(posedge clk); while (!arready);
        arvalid <= 1'b0;
        gap();
        rready <= 1'b1;
        do @(posedge clk); while (!rvalid);
        d = rdata;
        last_rresp = rresp;
        rready <= 1'b0;
    endtask

    // the GID table: zero from reset, each word as written, to the host's
    // reads and to the data path (cfg_gid: entry e's word 0 is its most
    // significant 32 bits)
    task automatic gid_check;
        logic [31:0] v;
        logic [1:0]  resp;
        for (int i = 0; i < 16; i++) begin
            host_read(16'(rnic_pkg::REG_PORT_GID + 4 * i), v);
            expect_eq("GID word after reset", v, 32'h0);
        end
        for (int i = 0; i < 16; i += 3) begin
            host_write(16'(rnic_pkg::REG_PORT_GID + 4 * i), 32'h9e000000 | 32'(i * 4099), resp);
            expect_eq("GID write response", 32'(resp), 0);
        end
        for (int i = 0; i < 16; i++) begin
            host_read(16'(rnic_pkg::REG_PORT_GID + 4 * i), v);
            expect_eq("GID word as written", v, i % 3 == 0 ? 32'h9e000000 | 32'(i * 4099) : 32'h0);
            expect_eq("GID word to the data path", gid[128 * (i / 4) + 32 * (3 - i % 4) +: 32], v);
        end
        // written twice, read at once
        host_write(16'(rnic_pkg::REG_PORT_GID + 20), 32'h12345678, resp);
        host_write(16'(rnic_pkg::REG_PORT_GID + 20), 32'h87654321, resp);
        host_read(16'(rnic_pkg::REG_PORT_GID + 20), v);
        expect_eq("GID word written twice", v, 32'h87654321);
    endtask

    // an MTT run (CTX_OP_MTT_RUN): CTX_COUNT entries from CTX_DATA, entry k
    // from words 2k and 2k + 1, to consecutive indexes; twice, the second
    // after some of the words changed
    task automatic mtt_run_check;
        logic [1:0]  resp;
        logic [31:0] words [32];
        int          first;
        for (int i = 0; i < 32; i++) begin
            words[i] = 32'h3c000000 | 32'(i * 40503);
            host_write(16'(rnic_pkg::REG_CTX_DATA + 4 * i), words[i], resp);
        end
        for (int r = 0; r < 2; r++) begin
            int idx, cnt;
            idx = r == 0 ? 0 : 3;
            cnt = r == 0 ? 16 : 5;
            if (r == 1)
                for (int i = 0; i < 32; i += 3) begin
                    words[i] = ~words[i];
                    host_write(16'(rnic_pkg::REG_CTX_DATA + 4 * i), words[i], resp);
                end
            first = mtt_takes;
            host_write(16'(rnic_pkg::REG_CTX_COUNT), 32'(cnt), resp);
            host_write(16'(rnic_pkg::REG_CTX_CMD),
                       {24'(idx), rnic_pkg::CTX_OP_MTT_RUN[3:0], rnic_pkg::CTX_TABLE_MTT[3:0]}, resp);
            expect_eq("MTT run command response", 32'(resp), 0);
            while (mtt_takes < first + cnt) @(posedge clk);
            repeat (20) @(posedge clk);
            expect_eq("MTT run's entries", 32'(mtt_takes - first), 32'(cnt));
            for (int k = 0; k < cnt; k++)
                if (mtt_seen[first + k] != {8'(idx + k), words[2 * k + 1], words[2 * k]}) begin
                    $display("ERROR MTT run %0d entry %0d: %h, expected %h", r, k, mtt_seen[first + k],
                             {8'(idx + k), words[2 * k + 1], words[2 * k]});
                    errors++;
                end
        end
        host_write(16'(rnic_pkg::REG_CTX_COUNT), 32'd1, resp);
    endtask

    // the counters: counter k takes (k % 3) + 1 in cycles where a random
    // draw says so (the byte counters up to a beat's bytes); once the
    // increments stop and the counters' scanner has been round (well within
    // a host read's time), each reads its exact count
    task automatic stats_check;
        logic [31:0] v;
        int          want [STATS];
        for (int k = 0; k < STATS; k++) want[k] = 0;
        for (int c = 0; c < 2000; c++) begin
            @(posedge clk);
            for (int k = 0; k < STATS; k++) begin
                int n;
                n = ($urandom(seed) % 4 == 0) ? 0
                    : (k == 1 || k == 3) ? int'($urandom(seed) % (DATA_WIDTH / 8 + 1)) : k % 3 + 1;
                if (k % 3 == 2) n = n > 2 ? 2 : n;   // two events at the most
                stat_inc[16 * k +: 16] <= 16'(n);
                want[k] += n;
            end
        end
        @(posedge clk);
        stat_inc <= '0;
        repeat (STATS + 4) @(posedge clk);
        for (int k = 0; k < STATS; k++) begin
            host_read(16'(rnic_pkg::REG_STAT_TX_FRAMES + 4 * k), v);
            expect_eq("counter", v, 32'(want[k]));
        end
    endtask

    task automatic expect_eq(input string what, input logic [31:0] got, input logic [31:0] want);
        if (got !== want) begin
            $display("ERROR %s: 0x%08h, expected 0x%08h", what, got, want);
            errors++;
        end
    endtask

    // the MTT entries written (an MTT run's): {index, entry}
    logic [71:0] mtt_seen [64];
    int          mtt_takes = 0;

    // the context window write the firmware makes
    logic seen_ctx;
    logic [31:0] seen_ctx_word0, seen_ctx_cmd;
    logic ctx_was_held;
    logic [31:0] ctx_held_cmd, ctx_held_word0;
    int ctx_wait;
    always @(posedge clk) begin
        ctx_wr_ready <= !ctx_block && !ctx_wr_busy && ($random(ctx_seed) % 3 == 0);
        if (ctx_wr_busy && $random(ctx_seed) % 4 == 0) ctx_wr_busy <= 1'b0;
        if (ctx_wr_valid && ctx_wr_ready) begin
            ctx_wr_busy <= 1'b1;
            seen_ctx <= 1'b1;
            seen_ctx_word0 <= ctx_wr_data[31:0];
            seen_ctx_cmd <= {ctx_wr_index, ctx_wr_op, ctx_wr_table};
            ctx_takes <= ctx_takes + 1;
            if (ctx_wr_table == rnic_pkg::CTX_TABLE_MTT[3:0]) begin
                mtt_seen[mtt_takes] = {8'(ctx_wr_index), ctx_wr_data[63:0]};
                mtt_takes = mtt_takes + 1;
            end
        end
        // a waiting write keeps its command and data
        if (ctx_wr_valid && ctx_was_held
            && ({ctx_wr_index, ctx_wr_op, ctx_wr_table} != ctx_held_cmd || ctx_wr_data[31:0] != ctx_held_word0)) begin
            $display("ERROR context write changed while it waited");
            errors++;
        end
        ctx_was_held <= ctx_wr_valid && !ctx_wr_ready;
        ctx_held_cmd <= {ctx_wr_index, ctx_wr_op, ctx_wr_table};
        ctx_held_word0 <= ctx_wr_data[31:0];
        ctx_wait <= (ctx_wr_valid && !ctx_wr_ready) ? ctx_wait + 1 : 0;
    end

    logic [31:0] in_words [32];
    logic [31:0] v, st;
    logic [1:0] resp;
    logic [7:0] op;
    logic [15:0] token;
    int polls;

    task automatic wait_done(output logic [31:0] status);
        polls = 0;
        do begin
            host_read(16'(rnic_pkg::REG_CMD_STATUS), status);
            polls++;
        end while (status[0] && polls < 5000);
        if (status[0]) begin
            $display("ERROR command 0x%02h never completed", op);
            errors++;
        end
    endtask

    // the last SQ doorbell
    logic [31:0] seen_sq;
    int sq_dbs;
    always @(posedge clk) begin
        if (sqv) begin
            seen_sq <= {sqq, sqp};
            sq_dbs <= sq_dbs + 1;
        end
    end

    logic [1023:0] win_words;
    task automatic fill_window;
        for (int i = 0; i < 32; i++) begin
            win_words[32*i +: 32] = $urandom(seed);
            host_write(16'(rnic_pkg::REG_DB_WQE + 4 * i), win_words[32*i +: 32], resp);
            expect_eq("DB_WQE write response", 32'(resp), 0);
            expect_eq("window withdrawn while written", 32'(win_valid), 0);
        end
    endtask

    task automatic check_window;
        int dbs;
        logic [15:0] idx;
        for (int qpn = 0; qpn < 3; qpn++) begin
            fill_window();
            dbs = sq_dbs;
            host_write(16'(rnic_pkg::REG_DB_SQ_WQE), {16'(qpn + 3), 16'(qpn * 7)}, resp);
            expect_eq("DB_SQ_WQE write response", 32'(resp), 0);
            repeat (2) @(posedge clk);
            expect_eq("DB_SQ_WQE rings the SQ doorbell", 32'(sq_dbs - dbs), 1);
            expect_eq("its doorbell word", seen_sq, {16'(qpn + 3), 16'(qpn * 7)});
            expect_eq("window valid", 32'(win_valid), 1);
            expect_eq("window QPN", 32'(win_qpn), 32'(qpn + 3));
            idx = 16'(qpn * 7) - 16'd1;
            expect_eq("window SQ index", 32'(win_idx), 32'(idx));
            for (int i = 0; i < 32; i++)
                expect_eq($sformatf("window word %0d", i), win_data[32*i +: 32], win_words[32*i +: 32]);
            if (qpn == 0) begin
                // one word written again: the WQE is no longer whole
                host_write(16'(rnic_pkg::REG_DB_WQE + 4 * 17), 32'h0, resp);
                expect_eq("window after a word write", 32'(win_valid), 0);
            end else begin
                @(negedge clk) win_clear = 1'b1;
                @(negedge clk) win_clear = 1'b0;
                expect_eq("window after clear", 32'(win_valid), 0);
            end
        end
        // the plain SQ doorbell leaves the window alone
        host_write(16'(rnic_pkg::REG_DB_SQ), 32'h00050009, resp);
        expect_eq("window after DB_SQ", 32'(win_valid), 0);
        host_read(16'(rnic_pkg::BLK_DB_BASE + rnic_pkg::REG_BLK_VERSION), v);
        expect_eq("doorbell block version", v, rnic_pkg::BLK_DB_VERSION);
        expect_eq("version with the window", 32'(v >= 32'h00010001), 1);
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        win_clear = 1'b0;
        sq_dbs = 0;
        errors = 0;
        seen_ctx = 1'b0;
        ctx_block = 1'b0;
        ctx_takes = 0;
        ctx_wait = 0;
        ctx_was_held = 1'b0;
        ctx_seed = seed + 17;
        awvalid = 0; wvalid = 0; bready = 0; arvalid = 0; rready = 0;
        // the offsets echo_fw.S uses
        if (rnic_pkg::FW_REG_BASE != 32'h10000000 || rnic_pkg::REG_CMD_STATUS != 32'h610 ||
            rnic_pkg::REG_CMD_DONE != 32'h614 || rnic_pkg::REG_CMD_OPCODE != 32'h618 ||
            rnic_pkg::REG_FW_STATE != 32'h61c || rnic_pkg::REG_CMD_IN != 32'h680 ||
            rnic_pkg::REG_CMD_OUT != 32'h700 || rnic_pkg::REG_CTX_CMD != 32'h20c ||
            rnic_pkg::REG_CTX_DATA != 32'h280) begin
            $display("ERROR echo_fw.S register offsets differ from rnic_pkg");
            errors++;
        end
        repeat (5) @(posedge clk);
        rst = 0;

        // boot
        polls = 0;
        do begin host_read(16'(rnic_pkg::REG_FW_STATE), v); polls++; end while (v == 0 && polls < 1000);
        expect_eq("FW_STATE after boot", v, 32'h00010002);
        host_read(16'(rnic_pkg::BLK_STAT_BASE + rnic_pkg::REG_BLK_NEXT), v);
        expect_eq("stat NEXT", v, rnic_pkg::BLK_CMD_BASE);
        host_read(16'(rnic_pkg::BLK_CMD_BASE + rnic_pkg::REG_BLK_TYPE), v);
        expect_eq("cmd TYPE", v, rnic_pkg::BLK_TYPE_CMD);
        host_read(16'(rnic_pkg::BLK_CMD_BASE + rnic_pkg::REG_BLK_NEXT), v);
        expect_eq("cmd NEXT", v, rnic_pkg::BLK_DB_BASE);

        gid_check();
        stats_check();

        for (int k = 0; k < N_CMDS; k++) begin
            for (int i = 0; i < 32; i++) begin
                in_words[i] = $urandom(seed);
                host_write(16'(rnic_pkg::REG_CMD_IN + 4 * i), in_words[i], resp);
                expect_eq("CMD_IN write response", 32'(resp), 0);
            end
            do op = 8'($urandom(seed)); while (op == 8'hee || op == 8'h77);
            token = 16'($urandom(seed));
            host_write(16'(rnic_pkg::REG_CMD_CTRL), {token, 8'h0, op}, resp);
            if (k % 3 == 0) begin
                // while the command runs: input and a second command are refused
                host_read(16'(rnic_pkg::REG_CMD_STATUS), st);
                expect_eq("busy right after CMD_CTRL", 32'(st[0]), 1);
                host_write(16'(rnic_pkg::REG_CMD_IN), ~in_words[0], resp);
                host_write(16'(rnic_pkg::REG_CMD_CTRL), 32'h12340001, resp);
                host_read(16'(rnic_pkg::REG_CMD_STATUS), st);
                expect_eq("overrun after writes while busy", 32'(st[1]), 1);
            end
            wait_done(st);
            expect_eq("status code", 32'(st[15:8]), 32'(op ^ 8'h5a));
            expect_eq("token", 32'(st[31:16]), 32'(token));
            expect_eq("halted", 32'(st[2]), 0);
            for (int i = 0; i < 31; i++) begin
                host_read(16'(rnic_pkg::REG_CMD_OUT + 4 * i), v);
                expect_eq($sformatf("cmd %0d OUT[%0d]", k, i), v, in_words[i] * 3 + 32'(op));
            end
            host_read(16'(rnic_pkg::REG_CMD_OUT + 124), v);
            expect_eq("commands served (RAM counter)", v, 32'(k + 1));
        end

        // the host may not write the firmware's registers
        host_write(16'(rnic_pkg::REG_CMD_OUT), 32'h1, resp);
        expect_eq("host write to CMD_OUT", 32'(resp), 2);
        host_write(16'(rnic_pkg::REG_CMD_DONE), 32'h1, resp);
        expect_eq("host write to CMD_DONE", 32'(resp), 2);
        host_write(16'(rnic_pkg::REG_FW_STATE), 32'h1, resp);
        expect_eq("host write to FW_STATE", 32'(resp), 2);
        // CTX_DATA is write-only; the scratch register reads back
        host_write(16'(rnic_pkg::REG_CTX_DATA + 8), 32'h5a5a0001, resp);
        expect_eq("host write to CTX_DATA", 32'(resp), 0);
        host_read(16'(rnic_pkg::REG_CTX_DATA + 8), v);
        expect_eq("host read of CTX_DATA", 32'(last_rresp), 2);
        host_write(16'(rnic_pkg::REG_DEV_SCRATCH), 32'h5a5a0002, resp);
        host_read(16'(rnic_pkg::REG_DEV_SCRATCH), v);
        expect_eq("host read of SCRATCH", v, 32'h5a5a0002);
        expect_eq("host read of SCRATCH (response)", 32'(last_rresp), 0);

        // the firmware programs a context through the window
        host_write(16'(rnic_pkg::REG_CMD_IN), 32'hdeadbeef, resp);
        host_write(16'(rnic_pkg::REG_CMD_IN + 4),
                   {24'd5, rnic_pkg::CTX_OP_WRITE[3:0], rnic_pkg::CTX_TABLE_MPT[3:0]}, resp);
        op = 8'h77;
        ctx_block = 1'b1;
        host_write(16'(rnic_pkg::REG_CMD_CTRL), 32'h00000077, resp);
        // not taken: the firmware's CMD_DONE waits behind it
        while (ctx_wait < 200) @(posedge clk);
        host_read(16'(rnic_pkg::REG_CMD_STATUS), st);
        expect_eq("busy while the context write waits", 32'(st[0]), 1);
        expect_eq("context write not yet taken", 32'(seen_ctx), 0);
        ctx_block = 1'b0;
        wait_done(st);
        expect_eq("context write seen", 32'(seen_ctx), 1);
        expect_eq("context write taken once", 32'(ctx_takes), 1);
        expect_eq("context word 0", seen_ctx_word0, 32'hdeadbeef);
        expect_eq("context command", seen_ctx_cmd,
                  {24'd5, rnic_pkg::CTX_OP_WRITE[3:0], rnic_pkg::CTX_TABLE_MPT[3:0]});

        mtt_run_check();
        check_window();

        // a bad access halts the firmware: the host sees it in CMD_STATUS
        op = 8'hee;
        host_write(16'(rnic_pkg::REG_CMD_CTRL), 32'h000000ee, resp);
        repeat (200) @(posedge clk);
        host_read(16'(rnic_pkg::REG_CMD_STATUS), st);
        expect_eq("halted after a bad access", 32'(st[2]), 1);

        if (errors == 0) $display("TB PASS");
        else $fatal(1, "TB FAIL: %0d errors", errors);
        $finish;
    end

    initial begin
        #50000000;
        $fatal(1, "TB FAIL: timeout");
    end
endmodule
