`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_pkt_tx testbench.
 *
 * Vectors (gen.py -> build/vectors/rnic_pkt_tx): random packet descriptors
 * (WRITE FIRST/MIDDLE/LAST/ONLY with RETH, WRITE ONLY with immediate, SEND
 * ONLY with immediate, READ REQUEST, READ RESPONSE FIRST and ACK with AETH;
 * IPv4 and IPv6; payloads 0..4096 bytes, every pad value) with the frame
 * scapy builds for each, ICRC included. The descriptors name a port GID
 * table entry for the source addresses (garbage in their own source fields
 * half of the time, which must be ignored); the port MAC and the four GIDs
 * come from cfg.hex.
 * 1. All descriptors with random gaps on the descriptor and payload inputs
 *    and random m_axis_tx_tready: every output byte must equal scapy's frame,
 *    every beat but the last full, tlast on the frame's last byte, tuser 0,
 *    the output held stable while stalled.
 * 2. The same without gaps or back-pressure: besides the checks of 1, the
 *    output may idle at most IDLE_PER_FRAME cycles per frame (payload at one
 *    beat per cycle).
 */
module tb;

    parameter int DATA_WIDTH = 64;
    localparam int KW = DATA_WIDTH / 8;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int MAXP = 4096;
    localparam int MAXB = 1 << 21;
    localparam int IDLE_PER_FRAME = 4;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic                  s_hdr_valid = 1'b0;
    logic                  s_hdr_ready;
    logic [HB-1:0]         s_hdr = '0;
    logic [DATA_WIDTH-1:0] s_axis_payload_tdata = '0;
    logic [KW-1:0]         s_axis_payload_tkeep = '0;
    logic                  s_axis_payload_tvalid = 1'b0;
    logic                  s_axis_payload_tready;
    logic                  s_axis_payload_tlast = 1'b0;
    logic [DATA_WIDTH-1:0] m_axis_tx_tdata;
    logic [KW-1:0]         m_axis_tx_tkeep;
    logic                  m_axis_tx_tvalid;
    logic                  m_axis_tx_tready = 1'b0;
    logic                  m_axis_tx_tlast;
    logic                  m_axis_tx_tuser;

    // the port: cfg.hex line 0 the MAC, lines 1..4 GID table entries 0..3
    logic [127:0]   cfg_mem [5];
    wire  [47:0]    cfg_port_mac = cfg_mem[0][47:0];
    wire  [4*128-1:0] cfg_gid = {cfg_mem[4], cfg_mem[3], cfg_mem[2], cfg_mem[1]};

    rnic_pkt_tx #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk(clk), .rst(rst),
        .cfg_port_mac(cfg_port_mac), .cfg_gid(cfg_gid),
        .s_hdr_valid(s_hdr_valid), .s_hdr_ready(s_hdr_ready), .s_hdr(s_hdr),
        .s_axis_payload_tdata(s_axis_payload_tdata), .s_axis_payload_tkeep(s_axis_payload_tkeep),
        .s_axis_payload_tvalid(s_axis_payload_tvalid), .s_axis_payload_tready(s_axis_payload_tready),
        .s_axis_payload_tlast(s_axis_payload_tlast),
        .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep),
        .m_axis_tx_tvalid(m_axis_tx_tvalid), .m_axis_tx_tready(m_axis_tx_tready),
        .m_axis_tx_tlast(m_axis_tx_tlast), .m_axis_tx_tuser(m_axis_tx_tuser)
    );

    integer seed = 1;
    integer errors = 0;
    logic   bp = 1'b1;      // random gaps and back-pressure

    function automatic integer rnd(input integer n);
        rnd = $unsigned($random(seed)) % n;
    endfunction

    task automatic fail(input string msg);
        if (errors < 20) $display("TB FAIL: %s (t=%0t)", msg, $time);
        errors = errors + 1;
    endtask

    logic [HB-1:0] desc_mem [MAXP];
    logic [95:0]   idx_mem [MAXP];
    logic [7:0]    pay_mem [MAXB];
    logic [7:0]    frame_mem [MAXB];
    integer        npkt;

    function automatic integer pay_off(input integer p);
        pay_off = idx_mem[p][95:64];
    endfunction
    function automatic integer pay_len(input integer p);
        pay_len = idx_mem[p][63:48];
    endfunction
    function automatic integer frame_off(input integer p);
        frame_off = idx_mem[p][47:16];
    endfunction
    function automatic integer frame_len(input integer p);
        frame_len = idx_mem[p][15:0];
    endfunction

    // ---------------------------------------------------------------- drivers
    task automatic drive_desc;
        for (int p = 0; p < npkt; p++) begin
            while (bp && rnd(4) == 0) @(posedge clk);
            s_hdr <= desc_mem[p];
            s_hdr_valid <= 1'b1;
            do @(posedge clk); while (!s_hdr_ready);
            s_hdr_valid <= 1'b0;
            s_hdr <= {HB{1'bx}};
        end
    endtask

    task automatic drive_payload;
        for (int p = 0; p < npkt; p++) begin
            for (int o = 0; o < pay_len(p); o += KW) begin
                while (bp && rnd(5) == 0) @(posedge clk);
                for (int i = 0; i < KW; i++) begin
                    s_axis_payload_tdata[8*i +: 8] <= (o + i < pay_len(p)) ? pay_mem[pay_off(p) + o + i] : 8'hxx;
                    s_axis_payload_tkeep[i] <= o + i < pay_len(p);
                end
                s_axis_payload_tlast <= o + KW >= pay_len(p);
                s_axis_payload_tvalid <= 1'b1;
                do @(posedge clk); while (!s_axis_payload_tready);
                s_axis_payload_tvalid <= 1'b0;
                s_axis_payload_tdata <= {DATA_WIDTH{1'bx}};
            end
        end
    endtask

    always @(posedge clk) m_axis_tx_tready <= bp ? (rnd(3) != 0) : 1'b1;

    // ---------------------------------------------------------------- monitor
    integer rx_pkt = 0;
    integer rx_pos = 0;
    integer out_beats = 0;
    integer idle_cycles = 0;
    logic   active = 1'b0;
    logic                  held = 1'b0;
    logic [DATA_WIDTH-1:0] held_data;
    logic [KW-1:0]         held_keep;
    logic                  held_last;

    always @(posedge clk) begin
        if (!rst) begin
            if (held && (!m_axis_tx_tvalid || m_axis_tx_tdata !== held_data ||
                         m_axis_tx_tkeep !== held_keep || m_axis_tx_tlast !== held_last)) begin
                fail("output changed while stalled");
            end
            held = m_axis_tx_tvalid && !m_axis_tx_tready;
            held_data = m_axis_tx_tdata;
            held_keep = m_axis_tx_tkeep;
            held_last = m_axis_tx_tlast;
            if (active && !m_axis_tx_tvalid && rx_pkt < npkt) idle_cycles = idle_cycles + 1;
            if (m_axis_tx_tvalid && m_axis_tx_tready) begin
                active = 1'b1;
                out_beats = out_beats + 1;
                if (rx_pkt >= npkt) begin
                    fail("output beat after the last frame");
                end else begin
                    if (m_axis_tx_tuser !== 1'b0) fail("tuser set");
                    for (int i = 0; i < KW; i++) begin
                        if (m_axis_tx_tkeep[i]) begin
                            if (rx_pos >= frame_len(rx_pkt)) begin
                                fail($sformatf("packet %0d: frame longer than %0d bytes", rx_pkt, frame_len(rx_pkt)));
                            end else if (m_axis_tx_tdata[8*i +: 8] !== frame_mem[frame_off(rx_pkt) + rx_pos]) begin
                                fail($sformatf("packet %0d byte %0d: got %02x, expected %02x", rx_pkt, rx_pos,
                                               m_axis_tx_tdata[8*i +: 8], frame_mem[frame_off(rx_pkt) + rx_pos]));
                            end
                            rx_pos = rx_pos + 1;
                        end else if (!m_axis_tx_tlast) begin
                            fail($sformatf("packet %0d: gap in a beat that is not the last", rx_pkt));
                        end
                        if (i > 0 && m_axis_tx_tkeep[i] && !m_axis_tx_tkeep[i-1]) begin
                            fail($sformatf("packet %0d: tkeep not a run from lane 0", rx_pkt));
                        end
                    end
                    if (m_axis_tx_tlast) begin
                        if (rx_pos != frame_len(rx_pkt)) begin
                            fail($sformatf("packet %0d: %0d bytes, expected %0d", rx_pkt, rx_pos, frame_len(rx_pkt)));
                        end
                        rx_pkt = rx_pkt + 1;
                        rx_pos = 0;
                    end else if (rx_pos >= frame_len(rx_pkt)) begin
                        fail($sformatf("packet %0d: no tlast on the last byte", rx_pkt));
                    end
                end
            end
        end
    end

    // ---------------------------------------------------------------- main
    string vecdir;
    integer cycles;

    task automatic run_phase(input logic backpressure, input string name);
        integer t0;
        bp = backpressure;
        rx_pkt = 0;
        rx_pos = 0;
        out_beats = 0;
        idle_cycles = 0;
        active = 1'b0;
        t0 = $time;
        fork
            drive_desc();
            drive_payload();
        join
        cycles = 0;
        while (rx_pkt < npkt && cycles < 2000000) begin
            @(posedge clk);
            cycles = cycles + 1;
        end
        if (rx_pkt < npkt) fail($sformatf("%s: only %0d of %0d frames came out", name, rx_pkt, npkt));
        $display("%s: %0d frames, %0d output beats, %0d idle cycles inside the run, %0d cycles",
                 name, rx_pkt, out_beats, idle_cycles, ($time - t0) / 4);
        repeat (20) @(posedge clk);
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        $display("rnic_pkt_tx tb: DATA_WIDTH=%0d seed=%0d", DATA_WIDTH, seed);
        if (!$value$plusargs("vecdir=%s", vecdir)) vecdir = "../../vectors/rnic_pkt_tx";
        for (int i = 0; i < MAXP; i++) idx_mem[i] = '0;
        $readmemh({vecdir, "/desc.hex"}, desc_mem);
        $readmemh({vecdir, "/cfg.hex"}, cfg_mem);
        $readmemh({vecdir, "/index.hex"}, idx_mem);
        $readmemh({vecdir, "/pay.hex"}, pay_mem);
        $readmemh({vecdir, "/frame.hex"}, frame_mem);
        npkt = 0;
        while (npkt < MAXP && frame_len(npkt) != 0) npkt = npkt + 1;
        if (npkt < 20) begin
            $display("TB FAIL: vectors not found in %s (%0d packets); run gen.py first", vecdir, npkt);
            $fatal(1);
        end
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);

        run_phase(1'b1, "random gaps and back-pressure");
        run_phase(1'b0, "full rate");
        if (idle_cycles > IDLE_PER_FRAME * npkt) begin
            fail($sformatf("full rate: %0d idle cycles for %0d frames", idle_cycles, npkt));
        end

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
