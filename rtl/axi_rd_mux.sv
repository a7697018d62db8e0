`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4 read-channel multiplexer: PORTS read masters share one AXI4 master.
 *
 * AR requests are granted round robin through a register stage; R beats go
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

    // the port that last issued each ID
    logic [PW-1:0] port_of_id [IDS];
    logic [PW-1:0] rr_reg;       // port after the last grant
    logic          ar_valid_reg;

    // round-robin choice among requesting ports, starting at rr_reg
    logic          grant_any;
    logic [PW-1:0] grant;
    always_comb begin
        grant_any = 1'b0;
        grant = '0;
        for (int k = 0; k < PORTS; k++) begin
            logic [PW-1:0] p;
            p = PW'((32'(rr_reg) + 32'(k)) % PORTS);
            if (!grant_any && s_axi_arvalid[p]) begin
                grant_any = 1'b1;
                grant = p;
            end
        end
    end

    wire take = grant_any && (!ar_valid_reg || m_axi_arready);
    always_comb begin
        s_axi_arready = '0;
        if (take) s_axi_arready[grant] = 1'b1;
    end
    assign m_axi_arvalid = ar_valid_reg;

    always_ff @(posedge clk) begin
        if (m_axi_arvalid && m_axi_arready) ar_valid_reg <= 1'b0;
        if (take) begin
            ar_valid_reg <= 1'b1;
            m_axi_arid <= s_axi_arid[32'(grant) * AXI_ID_WIDTH +: AXI_ID_WIDTH];
            m_axi_araddr <= s_axi_araddr[32'(grant) * AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH];
            m_axi_arlen <= s_axi_arlen[32'(grant) * 8 +: 8];
            m_axi_arsize <= s_axi_arsize[32'(grant) * 3 +: 3];
            m_axi_arburst <= s_axi_arburst[32'(grant) * 2 +: 2];
            m_axi_arlock <= s_axi_arlock[grant];
            m_axi_arcache <= s_axi_arcache[32'(grant) * 4 +: 4];
            m_axi_arprot <= s_axi_arprot[32'(grant) * 3 +: 3];
            port_of_id[s_axi_arid[32'(grant) * AXI_ID_WIDTH +: AXI_ID_WIDTH]] <= grant;
            rr_reg <= (32'(grant) == PORTS - 1) ? '0 : grant + 1'b1;
        end
        if (rst) begin
            ar_valid_reg <= 1'b0;
            rr_reg <= '0;
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
