`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_stat_ram testbench: 34 counters (the port's count), two of them
 * wide (byte counts of a DATA_WIDTH beat), the others taking 0..3 per
 * cycle. Random increments with a density that changes over the run
 * (idle, sparse, every counter every cycle at its largest amount), a
 * random read every cycle. Every read is checked against the reference:
 * it is the counter's exact count as of some cycle between COUNT + 2 cycles
 * before the read and the read, never less, never more. After the
 * increments stop and COUNT + 3 cycles pass, every counter reads exactly.
 * A reset in the middle: every counter reads zero after it, and counts
 * from zero again.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int COUNT = 34;
    localparam int INC_W = 16;
    localparam int AW = $clog2(COUNT);
    localparam int WIDE_INC_W = $clog2(DATA_WIDTH / 8 + 1);
    localparam logic [COUNT-1:0] WIDE = COUNT'(1) << 1 | COUNT'(1) << 3;
    localparam int LAG = COUNT + 2;   // increments of cycles before r - LAG are in a read at r
    localparam int H = 64;                 // history kept, cycles (> LAG)

    integer errors = 0, seed = 1, checks = 0;
    logic clk = 1'b0, rst = 1'b1;
    always #5 clk = ~clk;

    logic [COUNT*INC_W-1:0] inc = '0;
    logic [AW-1:0]          rd_addr = '0;
    logic [31:0]            rd_data;

    rnic_stat_ram #(.COUNT(COUNT), .INC_W(INC_W), .NARROW_INC_W(2), .WIDE_INC_W(WIDE_INC_W), .WIDE(WIDE)) dut (
        .clk, .rst, .inc, .rd_addr, .rd_data
    );

    // cum[i]: increments presented in the cycles before the current one;
    // hist[t % H][i]: cum[i] at the start of cycle t
    longint cum [COUNT];
    longint hist [H][COUNT];
    longint cyc = 0;
    int     density = 0;           // percent of counters with an increment
    bit     max_mode = 1'b0;       // every increment at its largest
    bit     gen = 1'b0;            // increments on
    bit     rd_pending = 1'b0;
    int     rd_a = 0;
    longint rd_cyc = 0;

    function automatic int inc_max(input int i);
        inc_max = WIDE[i] ? DATA_WIDTH / 8 : 3;
    endfunction

    always @(posedge clk) begin
        // check the read presented last cycle
        if (rd_pending && !rst) begin
            longint lo, hi;
            checks = checks + 1;
            hi = hist[rd_cyc % H][rd_a];
            lo = rd_cyc - LAG < 0 ? 0 : hist[(rd_cyc - LAG) % H][rd_a];
            if (rd_cyc - LAG < 0) lo = 0;
            if (longint'(rd_data) < lo || longint'(rd_data) > hi) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL: cycle %0d counter %0d read %0d, expected %0d..%0d", rd_cyc, rd_a, rd_data, lo, hi);
            end
        end
        for (int i = 0; i < COUNT; i++) begin
            hist[cyc % H][i] = cum[i];
            cum[i] = cum[i] + longint'(inc[INC_W*i +: INC_W]);
        end
        rd_pending = !rst;
        rd_a = int'(rd_addr);
        rd_cyc = cyc;
        cyc = cyc + 1;
        // next cycle's stimulus
        #1;
        for (int i = 0; i < COUNT; i++) begin
            int v;
            v = 0;
            if (gen && $urandom(seed) % 100 < density)
                v = max_mode ? inc_max(i) : int'($urandom(seed) % (inc_max(i) + 1));
            inc[INC_W*i +: INC_W] = INC_W'(v);
        end
        rd_addr = AW'($urandom(seed) % COUNT);
    end

    task automatic run(input int cycles);
        repeat (cycles) @(posedge clk);
    endtask

    task automatic restart;
        @(posedge clk);
        #2 rst = 1'b1;
        gen = 1'b0;
        @(posedge clk);
        #2 rst = 1'b0;
        for (int i = 0; i < COUNT; i++) cum[i] = 0;
        for (int t = 0; t < H; t++) for (int i = 0; i < COUNT; i++) hist[t][i] = 0;
    endtask

    task automatic settle_and_check_all;
        gen = 1'b0;
        run(LAG + 4);
        for (int a = 0; a < COUNT; a++) begin
            @(posedge clk);
            #2 rd_addr = AW'(a);
            @(posedge clk);
            #2;
            checks = checks + 1;
            if (longint'(rd_data) != cum[a]) begin
                errors = errors + 1;
                $display("FAIL: settled counter %0d reads %0d, expected %0d", a, rd_data, cum[a]);
            end
        end
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        for (int i = 0; i < COUNT; i++) cum[i] = 0;
        for (int t = 0; t < H; t++) for (int i = 0; i < COUNT; i++) hist[t][i] = 0;
        restart();
        // the first round after reset: reads of words not yet written
        run(COUNT + 4);
        for (int round = 0; round < 40; round++) begin
            gen = 1'b1;
            density = (round % 5 == 0) ? 100 : int'($urandom(seed) % 101);
            max_mode = (round % 5 == 0);
            run(200 + int'($urandom(seed) % 400));
            if (round % 8 == 7) settle_and_check_all();
            if (round == 20) begin
                restart();
                settle_and_check_all();
            end
        end
        settle_and_check_all();
        if (errors == 0 && checks > 10000) $display("TB PASS (%0d reads checked)", checks);
        else $display("TB FAIL (%0d errors, %0d checks)", errors, checks);
        $finish;
    end
endmodule
