`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4 read-channel multiplexer: PORTS read masters share one AXI4 master.
 *
 * AR requests enter a two-entry register slice per port and are granted
 * round robin from the slices' heads through a register stage; R beats go
 * back to the port that issued their ARID. The clients must use distinct
 * ARIDs (each DMA engine has its own); the mux does not rewrite IDs, so read
 * ordering per ID is the slave's. Port p's signals sit at [p*W +: W] of the
 * flattened s_axi_* vectors.
 */
module axi_rd_mux #(
    parameter int PORTS = 2,
    parameter int DATA_WIDTH = 64,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4
) (
    input  wire logic                               clk,
    input  wire logic                               rst,

    input  wire logic [PORTS*AXI_ID_WIDTH-1:0]      s_axi_arid,
    input  wire logic [PORTS*AXI_ADDR_WIDTH-1:0]    s_axi_araddr,
    input  wire logic [PORTS*8-1:0]                 s_axi_arlen,
    input  wire logic [PORTS*3-1:0]                 s_axi_arsize,
    input  wire logic [PORTS*2-1:0]                 s_axi_arburst,
    input  wire logic [PORTS-1:0]                   s_axi_arlock,
    input  wire logic [PORTS*4-1:0]                 s_axi_arcache,
    input  wire logic [PORTS*3-1:0]                 s_axi_arprot,
    input  wire logic [PORTS-1:0]                   s_axi_arvalid,
    output      logic [PORTS-1:0]                   s_axi_arready,
    output      logic [PORTS*AXI_ID_WIDTH-1:0]      s_axi_rid,
    output      logic [PORTS*DATA_WIDTH-1:0]        s_axi_rdata,
    output      logic [PORTS*2-1:0]                 s_axi_rresp,
    output      logic [PORTS-1:0]                   s_axi_rlast,
    output      logic [PORTS-1:0]                   s_axi_rvalid,
    input  wire logic [PORTS-1:0]                   s_axi_rready,

    output      logic [AXI_ID_WIDTH-1:0]            m_axi_arid,
    output      logic [AXI_ADDR_WIDTH-1:0]          m_axi_araddr,
    output      logic [7:0]                         m_axi_arlen,
    output      logic [2:0]                         m_axi_arsize,
    output      logic [1:0]                         m_axi_arburst,
    output      logic                               m_axi_arlock,
    output      logic [3:0]                         m_axi_arcache,
    output      logic [2:0]                         m_axi_arprot,
    output      logic                               m_axi_arvalid,
    input  wire logic                               m_axi_arready,
    input  wire logic [AXI_ID_WIDTH-1:0]            m_axi_rid,
    input  wire logic [DATA_WIDTH-1:0]              m_axi_rdata,
    input  wire logic [1:0]                         m_axi_rresp,
    input  wire logic                               m_axi_rlast,
    input  wire logic                               m_axi_rvalid,
    output      logic                               m_axi_rready
);

    localparam int PW = (PORTS > 1) ? $clog2(PORTS) : 1;
    localparam int IDS = 2 ** AXI_ID_WIDTH;

    initial begin
        if (PORTS < 1 || PORTS > IDS) begin
            $error("axi_rd_mux: PORTS must be 1..2^AXI_ID_WIDTH (%m)");
            $finish;
        end
    end

    // An AR request as one word: {id, addr, len, size, burst, lock, cache, prot}
    localparam int AR_W = AXI_ID_WIDTH + AXI_ADDR_WIDTH + 8 + 3 + 2 + 1 + 4 + 3;

    function automatic logic [AR_W-1:0] ar_word(input int p);
        ar_word = {s_axi_arid[p * AXI_ID_WIDTH +: AXI_ID_WIDTH], s_axi_araddr[p * AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH],
                   s_axi_arlen[p * 8 +: 8], s_axi_arsize[p * 3 +: 3], s_axi_arburst[p * 2 +: 2],
                   s_axi_arlock[p], s_axi_arcache[p * 4 +: 4], s_axi_arprot[p * 3 +: 3]};
    endfunction

    // Each port's requests enter a two-entry register slice (a skid buffer):
    // its arready is a register, so no port's request logic reaches another
    // port's through the arbiter (each engine's arready was a function of
    // every other engine's arvalid). The arbiter chooses among the slices'
    // head entries.
    logic [PORTS-1:0]      hd_valid_reg, sk_valid_reg;
    logic [PORTS*AR_W-1:0] hd_reg, sk_reg;

    // the port that last issued each ID
    logic [PW-1:0]    port_of_id [IDS];
    logic             ar_valid_reg;

    // round robin among the slices' heads; `take`: the grant goes out
    logic             take;
    logic [PORTS-1:0] grant_oh;
    logic [PW-1:0]    grant;
    logic             grant_any;
    logic [AR_W-1:0]  granted;
    rnic_rr_arb #(.PORTS(PORTS), .PW(PW)) arb_inst (
        .clk, .rst, .req(hd_valid_reg), .take, .any(grant_any), .grant_oh, .grant
    );
    always_comb begin
        granted = '0;
        for (int p = 0; p < PORTS; p++) granted = granted | ({AR_W{grant_oh[p]}} & hd_reg[p * AR_W +: AR_W]);
    end

    assign take = grant_any && (!ar_valid_reg || m_axi_arready);
    assign s_axi_arready = ~sk_valid_reg;
    assign m_axi_arvalid = ar_valid_reg;

    always_ff @(posedge clk) begin
        for (int p = 0; p < PORTS; p++) begin
            logic in, out;
            in = s_axi_arvalid[p] && !sk_valid_reg[p];
            out = take && grant_oh[p];
            if (sk_valid_reg[p]) begin
                // full: the head leaves, the skid entry moves up
                if (out) begin
                    hd_reg[p * AR_W +: AR_W] <= sk_reg[p * AR_W +: AR_W];
                    sk_valid_reg[p] <= 1'b0;
                end
            end else begin
                // the entries take the port's word whenever they are free,
                // so their load enables are not behind the port's arvalid
                sk_reg[p * AR_W +: AR_W] <= ar_word(p);
                if (!hd_valid_reg[p] || out) begin
                    hd_reg[p * AR_W +: AR_W] <= ar_word(p);
                    hd_valid_reg[p] <= in;
                end else if (in) begin
                    sk_valid_reg[p] <= 1'b1;
                end
            end
        end

        if (m_axi_arvalid && m_axi_arready) ar_valid_reg <= 1'b0;
        if (take) begin
            ar_valid_reg <= 1'b1;
            {m_axi_arid, m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arlock, m_axi_arcache,
             m_axi_arprot} <= granted;
            port_of_id[granted[AR_W-1 -: AXI_ID_WIDTH]] <= grant;
        end
        if (rst) begin
            hd_valid_reg <= '0;
            sk_valid_reg <= '0;
            ar_valid_reg <= 1'b0;
        end
    end

    // R back to the port that owns the ID
    wire [PW-1:0] r_port = port_of_id[m_axi_rid];
    always_comb begin
        for (int p = 0; p < PORTS; p++) begin
            s_axi_rid[p * AXI_ID_WIDTH +: AXI_ID_WIDTH] = m_axi_rid;
            s_axi_rdata[p * DATA_WIDTH +: DATA_WIDTH] = m_axi_rdata;
            s_axi_rresp[p * 2 +: 2] = m_axi_rresp;
            s_axi_rlast[p] = m_axi_rlast;
            s_axi_rvalid[p] = m_axi_rvalid && r_port == PW'(p);
        end
        m_axi_rready = s_axi_rready[r_port];
    end

endmodule

`resetall
