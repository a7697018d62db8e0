`timescale 1ns / 1ps
`default_nettype none

/*
 * dma_burst_plan against a reference model: random descriptors (addresses
 * over all 64 bits, many next to a carry through the block number; lengths
 * from 0 to several hundred KiB, with and without a carry from the low half
 * of seg + len), random gaps on the input and random back-pressure on the
 * output, for the engines' burst size at this width and for 4-beat bursts
 * (many bursts per descriptor). Every burst is compared field by field and
 * must hold while not taken; then a stream of one-burst descriptors with no
 * back-pressure must come out at one burst per cycle.
 */
module tb;
    parameter int DATA_WIDTH = 64;
    localparam int K = DATA_WIDTH / 8;
    localparam int OFF_W = $clog2(K);

    logic clk = 0, rst = 1;
    always #5 clk = ~clk;
    int seed = 1, errors = 0;

    // instance 0: the engines' bursts; instance 1: 4 beats
    localparam int MB0 = (4096 / K < 256) ? 4096 / K : 256;
    localparam int MB1 = 4;

    logic [63:0] s_addr [2];
    logic [31:0] s_len [2];
    logic [7:0]  s_user [2];
    logic        s_valid [2], s_ready [2];
    logic [63:0] m_addr [2];
    logic [7:0]  m_len [2];
    logic [OFF_W-1:0] m_first_lane [2];
    logic [OFF_W:0] m_last_bytes [2];
    logic        m_first [2], m_end [2], m_valid [2], m_ready [2];
    logic [7:0]  m_user [2];

    dma_burst_plan #(.KEEP_WIDTH(K), .MAX_BURST_BEATS(MB0), .USER_W(8)) dut0 (
        .clk, .rst, .s_addr(s_addr[0]), .s_len(s_len[0]), .s_user(s_user[0]), .s_valid(s_valid[0]), .s_ready(s_ready[0]),
        .m_addr(m_addr[0]), .m_len(m_len[0]), .m_first_lane(m_first_lane[0]), .m_last_bytes(m_last_bytes[0]),
        .m_first(m_first[0]), .m_end(m_end[0]), .m_user(m_user[0]), .m_valid(m_valid[0]), .m_ready(m_ready[0]));
    dma_burst_plan #(.KEEP_WIDTH(K), .MAX_BURST_BEATS(MB1), .USER_W(8)) dut1 (
        .clk, .rst, .s_addr(s_addr[1]), .s_len(s_len[1]), .s_user(s_user[1]), .s_valid(s_valid[1]), .s_ready(s_ready[1]),
        .m_addr(m_addr[1]), .m_len(m_len[1]), .m_first_lane(m_first_lane[1]), .m_last_bytes(m_last_bytes[1]),
        .m_first(m_first[1]), .m_end(m_end[1]), .m_user(m_user[1]), .m_valid(m_valid[1]), .m_ready(m_ready[1]));

    // expected bursts, in order, per instance
    localparam int QN = 1 << 16;
    logic [63:0] ex_addr [2][QN];
    logic [7:0]  ex_len [2][QN];
    logic [OFF_W-1:0] ex_lane [2][QN];
    logic [OFF_W:0] ex_lbytes [2][QN];
    logic        ex_first [2][QN], ex_end [2][QN];
    logic [7:0]  ex_user [2][QN];
    int ex_wr [2], ex_rd [2], bursts [2];

    task automatic expect_desc(input int d, input logic [63:0] addr, input logic [31:0] len, input logic [7:0] user);
        longint unsigned pos, e, blk_end, fin, bb;
        bb = (d == 0) ? MB0 * K : MB1 * K;
        pos = addr;
        fin = addr + 64'(len);
        while (pos < fin) begin
            int w;
            blk_end = (pos / bb + 1) * bb;
            e = fin < blk_end ? fin : blk_end;
            w = ex_wr[d] % QN;
            ex_addr[d][w] = pos & ~64'(K - 1);
            ex_len[d][w] = 8'((e - 1) / K - pos / K);
            ex_first[d][w] = pos == addr;
            ex_lane[d][w] = OFF_W'(pos % K);
            ex_end[d][w] = e == fin;
            ex_lbytes[d][w] = (e == fin) ? (OFF_W+1)'((fin - 1) % K + 1) : (OFF_W+1)'(K);
            ex_user[d][w] = user;
            ex_wr[d]++;
            pos = e;
        end
    endtask

    // the output: random back-pressure, held while offered, compared when taken
    int bp_pct = 40;
    logic        held_v [2];
    logic [63:0] held_addr [2];
    logic [7:0]  held_len [2];
    always @(posedge clk) begin
        for (int d = 0; d < 2; d++) begin
            if (!rst && held_v[d] && (!m_valid[d] || m_addr[d] != held_addr[d] || m_len[d] != held_len[d])) begin
                $display("TB FAIL: instance %0d: an offered burst changed before it was taken", d); errors++;
            end
            held_v[d] <= m_valid[d] && !m_ready[d];
            held_addr[d] <= m_addr[d];
            held_len[d] <= m_len[d];
            if (!rst && m_valid[d] && m_ready[d]) begin
                int r;
                r = ex_rd[d] % QN;
                if (ex_rd[d] >= ex_wr[d]) begin
                    if (errors < 10) $display("TB FAIL: instance %0d: burst at %h not expected", d, m_addr[d]);
                    errors++;
                end else if (m_addr[d] != ex_addr[d][r] || m_len[d] != ex_len[d][r] || m_first[d] != ex_first[d][r]
                             || m_end[d] != ex_end[d][r] || m_last_bytes[d] != ex_lbytes[d][r] || m_user[d] != ex_user[d][r]
                             || (ex_first[d][r] && m_first_lane[d] != ex_lane[d][r])) begin
                    if (errors < 10)
                        $display("TB FAIL: instance %0d burst %0d: got %h len %0d first %0d/%0d end %0d lbytes %0d user %0d; want %h len %0d first %0d/%0d end %0d lbytes %0d user %0d",
                                 d, ex_rd[d], m_addr[d], m_len[d], m_first[d], m_first_lane[d], m_end[d], m_last_bytes[d], m_user[d],
                                 ex_addr[d][r], ex_len[d][r], ex_first[d][r], ex_lane[d][r], ex_end[d][r], ex_lbytes[d][r], ex_user[d][r]);
                    errors++;
                end
                ex_rd[d]++;
                bursts[d]++;
            end
            m_ready[d] <= ($urandom(seed) % 100) >= bp_pct;
        end
    end

    function automatic logic [63:0] rand_addr();
        logic [63:0] a;
        a = {$urandom(seed), $urandom(seed)};
        case ($urandom(seed) % 5)
            0: a[63:20] = '1;                         // block number all ones up to bit 63
            1: a[40:12] = '1;                         // a carry through 29 bits
            2: a[31:12] = '1;                         // into bit 32
            3: a = a & 64'hffff_ffff;                 // low memory
            default: ;
        endcase
        if (a > 64'hffff_ffff_ffc0_0000) a = a - 64'h40_0000;   // no range wraps past 2^64
        return a;
    endfunction

    function automatic logic [31:0] rand_len();
        case ($urandom(seed) % 8)
            0: return 32'($urandom(seed) % 4);                   // 0..3
            1: return 32'(1 + $urandom(seed) % 128);
            2: return 32'(1 + $urandom(seed) % 9000);
            3: return 32'h1_0000 - 32'($urandom(seed) % 200);      // the low half near a carry
            4: return 32'h1_0000 + 32'($urandom(seed) % 200);
            5: return 32'(32'h2_0000 + $urandom(seed) % 32'h4_0000);
            6: return 32'(K * (1 + $urandom(seed) % 64));
            default: return 32'(1 + $urandom(seed) % 70000);
        endcase
    endfunction

    task automatic feed(input int d, input int n, input int gap_pct);
        for (int i = 0; i < n; i++) begin
            logic [63:0] a;
            logic [31:0] l;
            logic [7:0] u;
            a = rand_addr();
            l = rand_len();
            if (d == 1 && l > 32'd20000) l = l % 20000;    // 4-beat bursts: keep it short
            u = 8'($urandom(seed));
            while (($urandom(seed) % 100) < gap_pct) @(posedge clk);
            expect_desc(d, a, l, u);
            s_addr[d] <= a; s_len[d] <= l; s_user[d] <= u; s_valid[d] <= 1;
            @(posedge clk);
            while (!s_ready[d]) @(posedge clk);
            s_valid[d] <= 0;
        end
    endtask

    task automatic drain;
        int t;
        t = 0;
        while ((ex_rd[0] != ex_wr[0] || ex_rd[1] != ex_wr[1]) && t < 2000000) begin @(posedge clk); t++; end
        if (t >= 2000000) begin $display("TB FAIL: bursts missing (%0d/%0d, %0d/%0d)", ex_rd[0], ex_wr[0], ex_rd[1], ex_wr[1]); errors++; end
    endtask

    initial begin
        int n0, t0, t1;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        for (int d = 0; d < 2; d++) begin
            s_valid[d] = 0; m_ready[d] = 0; ex_wr[d] = 0; ex_rd[d] = 0; bursts[d] = 0; held_v[d] = 0;
        end
        repeat (4) @(posedge clk);
        rst <= 0;
        fork
            feed(0, 1500, 30);
            feed(1, 600, 30);
        join
        drain();
        // no gaps, no back-pressure: one-burst descriptors at one per cycle
        bp_pct = 0;
        repeat (4) @(posedge clk);
        n0 = bursts[0];
        t0 = 0;
        fork
            begin
                for (int i = 0; i < 200; i++) begin
                    logic [63:0] a;
                    a = rand_addr() & ~64'(MB0 * K - 1);
                    expect_desc(0, a, 32'(1 + i % (MB0 * K)), 8'(i));
                    s_addr[0] <= a; s_len[0] <= 32'(1 + i % (MB0 * K)); s_user[0] <= 8'(i); s_valid[0] <= 1;
                    @(posedge clk);
                    while (!s_ready[0]) @(posedge clk);
                end
                s_valid[0] <= 0;
            end
            begin
                while (bursts[0] == n0) @(posedge clk);
                while (bursts[0] < n0 + 200 && t0 < 1000) begin @(posedge clk); t0++; end
            end
        join
        drain();
        t1 = t0;
        if (t1 > 200) begin $display("TB FAIL: 200 one-burst descriptors took %0d cycles from the first burst", t1); errors++; end
        $display("instance 0 (%0d-beat bursts): %0d bursts; instance 1 (4-beat): %0d bursts; 200 one-burst descriptors in %0d cycles",
                 MB0, bursts[0], bursts[1], t1);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
