`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * OpenRNIC core: a RoCEv2 RC NIC data path behind three vendor-neutral
 * interfaces: an AXI4-Lite slave for BAR0, an AXI4 master for DMA to host
 * memory, and AXI4-Stream TX/RX toward an Ethernet MAC (frames without
 * preamble and FCS). docs/ARCHITECTURE.md draws the blocks wired here.
 */
module rnic_core #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4,
    parameter int AXIL_ADDR_WIDTH = 16,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int CQN_WIDTH = 10,
    parameter int MTT_INDEX_WIDTH = 14,
    // shared receive queue contexts: 2^SRQN_WIDTH (SRQN 0 unused), at most
    // one per QP (a core of 2^QPN_WIDTH QPs has that many)
    parameter int SRQN_WIDTH = 8,
    // address handles of UD sends: 2^AH_INDEX_WIDTH entries (AH 0 unused)
    parameter int AH_INDEX_WIDTH = 10,
    parameter int INFLIGHT_LOG2 = 5,
    // SGE lists of outstanding READs / ATOMICs kept for their responses:
    // 2^RD_PLACE_LOG2 entries, one block-RAM table (1024 by default: 32 QPs
    // each with a full window of 2^INFLIGHT_LOG2 = 32 find every response's
    // SGEs on the card; with 64 entries, 8 QPs reading at once missed on
    // most responses and fetched the WQE from host memory for each)
    parameter int RD_PLACE_LOG2 = 10,
    // receive frame FIFO. At 100 Gb/s (50 B a cycle) a PAUSE takes about
    // 370 cycles to stop the peer (a 4 KiB frame of ours ahead of it, 100
    // cycles of link, the peer's frame in progress, 100 back): 18 KiB
    // that must fit above XOFF; and the resume about 280 (14 KiB) that
    // must still be queued below XON, or the data path idles. 64 KiB with
    // the thresholds after reset (half and a quarter) leaves both; at
    // 10 Gb/s 32 KiB leaves them many times over.
    parameter int RX_FIFO_BYTES = DATA_WIDTH >= 512 ? 65536 : 32768,
    // read buffer of each DMA engine whose data the transmit path takes in
    // header order (requester payload, READ responses): bursts are asked for
    // only with room for them, so the shared R channel never waits (dma_rd)
    parameter int TX_DMA_BUF_BYTES = 16384,
    // ... and the bytes each may have asked for and not yet received: the
    // shared R channel returns bursts in AR order, so the receive path's
    // small reads (receive WQEs, ATOMIC operands) wait behind them. 32 bus
    // words' worth of bytes per data bit (2 KiB at 64 bits: 8 B a cycle for
    // a 200-cycle round trip; at 512 bits the buffer's 16 KiB); dma_rd
    // cuts bursts of a quarter of it or less, so that four are in flight
    parameter int TX_DMA_INFLIGHT_BYTES = DATA_WIDTH * 32,
    // ... and the large payload descriptors (a packet of 1 KiB or more)
    // each may hold in its burst planner before it asks for their bursts:
    // a restart (go-back-N) drains every packet queued ahead of the wire,
    // and the planner's queue would take a dozen 4 KiB packets (dma_rd)
    parameter int TX_DMA_LARGE_BYTES = 1024,
    parameter int TX_DMA_LARGE_MAX = 1,
    // write buffer in front of the responder's payload DMA engine: the
    // responder moves a packet's payload at a beat per cycle, and host
    // memory drains it at its own pace (a PCIe Gen3 x16 host takes 54 of
    // every 64 bytes a cycle at 250 MHz) while the responder goes on with
    // the next packet's header; two path-MTU packets
    parameter int RX_WR_BUF_BYTES = 8192,
    // ... and the writes it keeps in flight: each waits for its B response
    // for the host's write latency (100 cycles in the 512-bit model), and
    // the packet's ACK waits for it. 8 held 64 B WRITEs to one per 13 to 16
    // cycles at the receiver; 32 cover a packet every 4 cycles
    parameter int RX_WR_OUTSTANDING = 32,
    // the CQE writer's writes in flight (a body and its owner byte per CQE,
    // the owner after the body's B response): 8 held a CQE to one per 25
    // cycles, the bound of a 64 B SEND stream (a receive CQE each); 32
    // cover one every 6 to 7 cycles
    parameter int CQE_WR_OUTSTANDING = 32,
    // requester packets queued for the packet builder with their payload
    // reads already asked for: 2^REQ_HDRQ_LOG2 cover the host's read latency
    // for small messages (the builder waits for each packet's payload)
    parameter int REQ_HDRQ_LOG2 = 5,
    // READ responses (and the ACKs queued behind them) the READ engine
    // holds: 2^RD_JOBS_LOG2 jobs, each compared with an ATOMIC's line, and
    // 2^RD_PAYQ_LOG2 payload reads asked for and not yet answered; 32 and
    // 32 keep 100 Gb/s busy with many QPs reading 64 B each (with 16, the
    // 512-bit engine waited for a free entry half the time of a row of
    // 64 B READs over 8 QPs), a core with 16 QPs needs fewer (the ECP5 runs)
    parameter int RD_JOBS_LOG2 = 5,
    parameter int RD_PAYQ_LOG2 = DATA_WIDTH >= 512 ? 5 : 4,
    // bursts the READ responses' payload engine keeps in flight to host
    // memory: each 64 B response waits a host round trip for its bytes, so
    // 8 held the 512-bit responder to one response per 26 cycles (the
    // model's 200-cycle read round trip); the requester's engine has 32
    parameter int RD_PAY_OUTSTANDING = DATA_WIDTH >= 512 ? 32 : 8,
    // the control processor's RAM answer registered once more (a wait state
    // per access), for fabrics whose block RAM answers late (rnic_ctrl)
    parameter int CTRL_RAM_RD_STAGE = 0,
    // control processor: RAM size and the firmware image ($readmemh; "" leaves
    // the RAM empty and the CPU traps at once)
    parameter int FW_RAM_BYTES = rnic_pkg::FW_RAM_BYTES,
    parameter FW_HEX = ""
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    // BAR0
    input  wire logic [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire logic [2:0]                 s_axil_awprot,
    input  wire logic                       s_axil_awvalid,
    output      logic                       s_axil_awready,
    input  wire logic [31:0]                s_axil_wdata,
    input  wire logic [3:0]                 s_axil_wstrb,
    input  wire logic                       s_axil_wvalid,
    output      logic                       s_axil_wready,
    output      logic [1:0]                 s_axil_bresp,
    output      logic                       s_axil_bvalid,
    input  wire logic                       s_axil_bready,
    input  wire logic [AXIL_ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire logic [2:0]                 s_axil_arprot,
    input  wire logic                       s_axil_arvalid,
    output      logic                       s_axil_arready,
    output      logic [31:0]                s_axil_rdata,
    output      logic [1:0]                 s_axil_rresp,
    output      logic                       s_axil_rvalid,
    input  wire logic                       s_axil_rready,

    // DMA
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_awid,
    output      logic [AXI_ADDR_WIDTH-1:0]  m_axi_awaddr,
    output      logic [7:0]                 m_axi_awlen,
    output      logic [2:0]                 m_axi_awsize,
    output      logic [1:0]                 m_axi_awburst,
    output      logic                       m_axi_awlock,
    output      logic [3:0]                 m_axi_awcache,
    output      logic [2:0]                 m_axi_awprot,
    output      logic                       m_axi_awvalid,
    input  wire logic                       m_axi_awready,
    output      logic [DATA_WIDTH-1:0]      m_axi_wdata,
    output      logic [KEEP_WIDTH-1:0]      m_axi_wstrb,
    output      logic                       m_axi_wlast,
    output      logic                       m_axi_wvalid,
    input  wire logic                       m_axi_wready,
    input  wire logic [AXI_ID_WIDTH-1:0]    m_axi_bid,
    input  wire logic [1:0]                 m_axi_bresp,
    input  wire logic                       m_axi_bvalid,
    output      logic                       m_axi_bready,
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_arid,
    output      logic [AXI_ADDR_WIDTH-1:0]  m_axi_araddr,
    output      logic [7:0]                 m_axi_arlen,
    output      logic [2:0]                 m_axi_arsize,
    output      logic [1:0]                 m_axi_arburst,
    output      logic                       m_axi_arlock,
    output      logic [3:0]                 m_axi_arcache,
    output      logic [2:0]                 m_axi_arprot,
    output      logic                       m_axi_arvalid,
    input  wire logic                       m_axi_arready,
    input  wire logic [AXI_ID_WIDTH-1:0]    m_axi_rid,
    input  wire logic [DATA_WIDTH-1:0]      m_axi_rdata,
    input  wire logic [1:0]                 m_axi_rresp,
    input  wire logic                       m_axi_rlast,
    input  wire logic                       m_axi_rvalid,
    output      logic                       m_axi_rready,

    // Ethernet
    output      logic [DATA_WIDTH-1:0]      m_axis_tx_tdata,
    output      logic [KEEP_WIDTH-1:0]      m_axis_tx_tkeep,
    output      logic                       m_axis_tx_tvalid,
    input  wire logic                       m_axis_tx_tready,
    output      logic                       m_axis_tx_tlast,
    output      logic                       m_axis_tx_tuser,
    input  wire logic [DATA_WIDTH-1:0]      s_axis_rx_tdata,
    input  wire logic [KEEP_WIDTH-1:0]      s_axis_rx_tkeep,
    input  wire logic                       s_axis_rx_tvalid,
    output      logic                       s_axis_rx_tready,
    input  wire logic                       s_axis_rx_tlast,
    input  wire logic                       s_axis_rx_tuser,
    // link flow control (IEEE 802.3 Annex 31B): while high, the MAC keeps the
    // link peer paused (PAUSE frames, refreshed); its fall releases it. The
    // MAC itself honours the peer's PAUSE frames by holding m_axis_tx_tready.
    output      logic                       mac_pause_req
);

    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    // counters: STAT_TX_FRAMES to the end of the stat block
    localparam int STAT_COUNT = (rnic_pkg::BLK_STAT_END - rnic_pkg::REG_STAT_TX_FRAMES) / 4;
    localparam int INF_BITS = 113;
    // no more SGE-list entries than there can be outstanding READs (a core
    // of few QPs, as the boards' small-table checks build it)
    localparam int RD_PLACE_LOG2_EFF = RD_PLACE_LOG2 < QPN_WIDTH + INFLIGHT_LOG2 ? RD_PLACE_LOG2
                                       : QPN_WIDTH + INFLIGHT_LOG2;
    localparam int CTX_BITS = rnic_pkg::CTX_WORDS * 32;
    // DMA client IDs (distinct per client, as the AXI muxes require)
    localparam logic [AXI_ID_WIDTH-1:0] ID_RD_WQE = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_RD_WQE);
    localparam logic [AXI_ID_WIDTH-1:0] ID_RD_PAYLOAD = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_RD_PAYLOAD);
    localparam logic [AXI_ID_WIDTH-1:0] ID_RD_RWQE = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_RD_RWQE);
    localparam logic [AXI_ID_WIDTH-1:0] ID_RD_RDRSP = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_RD_RDRSP);
    localparam logic [AXI_ID_WIDTH-1:0] ID_RD_PLWQE = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_RD_PLWQE);
    localparam logic [AXI_ID_WIDTH-1:0] ID_WR_PAYLOAD = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_WR_PAYLOAD);
    localparam logic [AXI_ID_WIDTH-1:0] ID_WR_CQE = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_WR_CQE);
    localparam logic [AXI_ID_WIDTH-1:0] ID_WR_PLACE = AXI_ID_WIDTH'(rnic_pkg::DMA_ID_WR_PLACE);
    localparam int RD_PORTS = 5;
    localparam int WR_PORTS = 3;

    initial begin
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || (DATA_WIDTH & (DATA_WIDTH - 1)) != 0) begin
            $error("rnic_core: DATA_WIDTH must be a power of two in 64..512 (%m)");
            $finish;
        end
        if (AXI_ADDR_WIDTH != 64 || CQN_WIDTH > 15 || QPN_WIDTH > 16 || SRQN_WIDTH < 1) begin
            $error("rnic_core: unsupported address or table width (%m)");
            $finish;
        end
    end

    // the SRQ table's index width: SRQN_WIDTH, capped at QPN_WIDTH
    localparam int SRQ_W = (SRQN_WIDTH < QPN_WIDTH) ? SRQN_WIDTH : QPN_WIDTH;

    // counter index of a STAT_* register
    function automatic logic [31:0] sidx(input logic [31:0] reg_addr);
        sidx = (reg_addr - rnic_pkg::REG_STAT_TX_FRAMES) / 4;
    endfunction

    // ------------------------------------------------------------------
    // registers, contexts
    // ------------------------------------------------------------------
    logic [47:0]           cfg_port_mac;
    logic [4*128-1:0]      cfg_gid;
    logic                  cfg_fc_en;
    logic [31:0]           cfg_fc_xoff, cfg_fc_xon, cfg_fc_stall;
    logic                  rg_ctx_valid, rg_ctx_ready;
    logic [3:0]            rg_ctx_table, rg_ctx_op;
    logic [23:0]           rg_ctx_index;
    logic [CTX_BITS-1:0]   rg_ctx_data;
    logic                  ctx_wr_valid;
    logic                  ctx_wr_ready;
    logic [3:0]            ctx_wr_op;
    logic [23:0]           ctx_wr_index;
    logic [CTX_BITS-1:0]   ctx_wr_data;
    logic                  db_sq_valid, db_sq_ready;
    logic [15:0]           db_sq_qpn, db_sq_pi;
    logic                  db_rq_valid, db_rq_ready;
    logic [15:0]           db_rq_qpn, db_rq_pi;
    logic                  db_rq_srq;          // DB_SRQ: db_rq_qpn is an SRQN
    logic                  db_cq_valid;
    logic [15:0]           db_cq_cqn, db_cq_ci;
    logic                  wqe_win_valid, wqe_win_new, wqe_win_clear, wqe_win_take;
    logic [15:0]           wqe_win_qpn, wqe_win_idx;
    logic [rnic_pkg::WQE_BYTES_TOTAL*8-1:0] wqe_win_data;
    // the counters' increments, registered on their way into rnic_regs: an
    // event pulse computed deep in a block and the counter's add are not one
    // path (a count lands a cycle later)
    logic [STAT_COUNT*16-1:0] stat_inc, stat_inc_d;

    // memory-window requests, answered by the firmware through the MW_REQ /
    // MW_ANSWER registers: the requester's (BIND_MW, LOCAL_INV WQEs) and the
    // responder's (SEND with invalidate). The registers show one source's
    // request at a time: a source keeps them from its request until its
    // valid drops after the answer; in a cycle the shown source has none,
    // the other one's waiting request takes them (so the two alternate).
    logic                         mw_req_valid, mw_ans_valid;
    logic [rnic_pkg::MW_REQ_BITS-1:0] mw_req_data;
    logic [7:0]                   mw_ans_status;
    logic                         mw_taken;
    logic                         rq_mw_valid, rq_mw_ans_valid;
    logic [rnic_pkg::MW_REQ_BITS-1:0] rq_mw_data;
    logic                         inv_req_valid, inv_ans_valid;
    logic [QPN_WIDTH-1:0]         inv_req_qpn;
    logic [31:0]                  inv_req_rkey;
    logic [rnic_pkg::MW_REQ_BITS-1:0] inv_req_data;
    logic                         mw_sel_inv_reg;   // the registers show the responder's request
    always_comb begin
        inv_req_data = '0;
        inv_req_data[rnic_pkg::MW_REQ_PENDING_LSB] = 1'b1;
        inv_req_data[rnic_pkg::MW_REQ_OP_LSB +: rnic_pkg::MW_REQ_OP_W] =
            rnic_pkg::MW_REQ_OP_REMOTE_INV[rnic_pkg::MW_REQ_OP_W-1:0];
        inv_req_data[rnic_pkg::MW_REQ_QPN_LSB +: rnic_pkg::MW_REQ_QPN_W] = 24'(inv_req_qpn);
        inv_req_data[rnic_pkg::MW_REQ_MW_RKEY_LSB +: rnic_pkg::MW_REQ_MW_RKEY_W] = inv_req_rkey;
    end
    assign mw_req_valid = mw_sel_inv_reg ? inv_req_valid : rq_mw_valid;
    assign mw_req_data = mw_sel_inv_reg ? inv_req_data : rq_mw_data;
    assign rq_mw_ans_valid = mw_ans_valid && !mw_sel_inv_reg;
    assign inv_ans_valid = mw_ans_valid && mw_sel_inv_reg;
    always_ff @(posedge clk) begin
        if (!mw_req_valid && (mw_sel_inv_reg ? rq_mw_valid : inv_req_valid)) mw_sel_inv_reg <= !mw_sel_inv_reg;
        if (rst) mw_sel_inv_reg <= 1'b0;
    end

    rnic_regs #(
        .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
        .DATA_WIDTH(DATA_WIDTH),
        .QPN_WIDTH(QPN_WIDTH),
        .MR_INDEX_WIDTH(MR_INDEX_WIDTH),
        .CQN_WIDTH(CQN_WIDTH),
        .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH),
        .SRQN_WIDTH(SRQ_W),
        .AH_INDEX_WIDTH(AH_INDEX_WIDTH),
        .INFLIGHT_LOG2(INFLIGHT_LOG2),
        .STAT_COUNT(STAT_COUNT),
        .CTX_BITS(CTX_BITS),
        .RX_FIFO_BYTES(RX_FIFO_BYTES)
    ) regs_inst (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .cfg_port_mac, .cfg_gid, .cfg_fc_en, .cfg_fc_xoff, .cfg_fc_xon, .cfg_fc_stall,
        .ctx_wr_valid(rg_ctx_valid), .ctx_wr_ready(rg_ctx_ready), .ctx_wr_table(rg_ctx_table),
        .ctx_wr_op(rg_ctx_op), .ctx_wr_index(rg_ctx_index), .ctx_wr_data(rg_ctx_data),
        .ctx_wr_busy(ctx_wr_valid),
        .db_sq_valid, .db_sq_ready, .db_sq_qpn, .db_sq_pi,
        .db_rq_valid, .db_rq_ready, .db_rq_qpn, .db_rq_pi, .db_rq_srq,
        .db_cq_valid, .db_cq_cqn, .db_cq_ci,
        .wqe_win_valid, .wqe_win_new, .wqe_win_qpn, .wqe_win_idx, .wqe_win_data, .wqe_win_clear,
        .stat_inc,
        .fw_valid, .fw_we, .fw_addr, .fw_wdata, .fw_ready, .fw_err, .fw_rdata,
        .fw_halted,
        .evt_word, .evt_pop,
        .mw_req_valid, .mw_req_data, .mw_ans_valid, .mw_ans_status, .mw_taken
    );


    // data-path events for the firmware (EVT_POP): a QP's error completion
    // (its move to the error state; flushes follow it and are not events)
    // and a CQ overrun
    logic [31:0] evt_word;
    logic        evt_pop;
    logic [15:0] stat_cq_overrun_cqn;
    // the responder's SRQ events
    logic                  evt_srq_limit_valid, evt_last_wqe_valid;
    logic [SRQ_W-1:0] evt_srq_limit_srqn;
    logic [QPN_WIDTH-1:0]  evt_last_wqe_qpn;
    logic                  evt_resp_err_valid;
    logic [3:0]            evt_resp_err_type;
    logic [QPN_WIDTH-1:0]  evt_resp_err_qpn;
    wire evt_qp_err = cqe_valid && cqe_ready && 32'(cqe_status) != rnic_pkg::WC_SUCCESS
                      && 32'(cqe_status) != rnic_pkg::WC_WR_FLUSH_ERR;

    rnic_evt_queue #(.DEPTH(rnic_pkg::EVT_QUEUE_DEPTH)) evt_queue_inst (
        .clk, .rst,
        .qp_err_valid(evt_qp_err), .qp_err_qpn(cqe_qpn),
        .cq_ovr_valid(stat_cq_overrun), .cq_ovr_cqn(24'(stat_cq_overrun_cqn)),
        .srq_lim_valid(evt_srq_limit_valid), .srq_lim_srqn(24'(evt_srq_limit_srqn)),
        .last_wqe_valid(evt_last_wqe_valid), .last_wqe_qpn(24'(evt_last_wqe_qpn)),
        .resp_err_valid(evt_resp_err_valid), .resp_err_type(evt_resp_err_type),
        .resp_err_qpn(24'(evt_resp_err_qpn)),
        .m_word(evt_word), .m_pop(evt_pop)
    );

    logic        fw_valid, fw_we, fw_ready, fw_err, fw_trap, fw_bus_err;
    logic [15:0] fw_addr;
    logic [31:0] fw_wdata, fw_rdata;
    wire         fw_halted = fw_trap || fw_bus_err;

    rnic_ctrl #(.RAM_BYTES(FW_RAM_BYTES), .RAM_RD_STAGE(CTRL_RAM_RD_STAGE), .FW_HEX(FW_HEX)) ctrl_inst (
        .clk, .rst,
        .fw_valid, .fw_we, .fw_addr, .fw_wdata, .fw_ready, .fw_err, .fw_rdata,
        .status_trap(fw_trap), .status_bus_err(fw_bus_err)
    );

    // A QP context write also resets or loads the engines' per-QP state, a CQ
    // context write the CQE writer's: it is taken in a cycle in which none of
    // them writes that state itself, so every per-QP (per-CQ) array keeps a
    // single write port and maps onto block or distributed RAM. Meanwhile
    // the completion engine takes no new event (it writes its state back in
    // every busy cycle), so the wait is short.
    //
    // Each table clears itself after reset (reads zero meanwhile); context
    // writes wait until all of them are clear. The AND of the thirteen
    // tables' flags is registered (a cycle later than it could be, once
    // after reset): it gates every context table's write enable, and
    // unregistered it began the deepest paths into the engines' per-QP state.
    logic qpc_req_clear_done, qpc_resp_clear_done, qpc_place_clear_done, cqc_clear_done;
    logic mpt_req_clear_done, mpt_resp_clear_done, mpt_place_clear_done, mpt_rdrsp_clear_done;
    logic compl_clear_done, rd_place_clear_done, mcg_clear_done;
    logic srqc_clear_done, ah_clear_done;
    logic tables_clear;
    always_ff @(posedge clk) begin
        tables_clear <= compl_clear_done && rd_place_clear_done && qpc_req_clear_done && qpc_resp_clear_done && qpc_place_clear_done
                        && cqc_clear_done && mpt_req_clear_done && mpt_resp_clear_done && mpt_place_clear_done && mpt_rdrsp_clear_done
                        && srqc_clear_done && ah_clear_done && mcg_clear_done;
        if (rst) tables_clear <= 1'b0;
    end

    logic req_ctx_ready, compl_ctx_ready, resp_ctx_ready, cqe_ctx_ready;
    // the table a context write goes to, decoded as the write is taken
    // into the register (flip-flops: the decode reached the engines' idle
    // inputs, ctx_pend, and through them their decisions); an SRQ context
    // write also sets the responder's per-SRQ state
    logic ctx_is_qpc, ctx_is_cqc, ctx_is_srqc, ctx_is_mpt, ctx_is_ah, ctx_is_mtt, ctx_is_mcg;

    // A context write leaves rnic_regs into one register (ctx_wr_*), which
    // holds it until the engines can take it: rnic_regs sees only that
    // register, not the engines' readiness, which is deep in their decision
    // logic and would otherwise reach every register write (rnic_regs holds
    // register writes while this register is full, so no doorbell overtakes
    // the write). A write to a table no engine writes (MR context, MTT) goes
    // on the next cycle, so an MTT run still writes one entry per cycle.
    //
    // Until every table is clear the register takes nothing and its data
    // stays zero (a synchronous reset, free on the flip-flops): the tables'
    // clear writes this data, so no copy needs a zero multiplexer on its
    // write data (WR_DATA_ZERO_IN_CLEAR).
    //
    // ctx_pend (qp_ctx_pend, srq_ctx_pend): a QP (SRQ) context write is in
    // the register. Loaded with it; an engine write leaves it only on its go
    // cycle (ctx_fire is ctx_go_reg then), so the flag clears on ctx_go_reg
    // alone, without the rest of ctx_fire's logic.
    // resp_ctx_pend: either, for the responder (a flip-flop of its own, not
    // the OR of the two in front of its S_IDLE choices)
    logic qp_ctx_pend, srq_ctx_pend, resp_ctx_pend;
    logic ctx_go_reg, qpc_we, srqc_we, qp_reset, qp_rtr, qp_rts;   // the go cycle (below)
    assign rg_ctx_ready = tables_clear && (!ctx_wr_valid || (!ctx_is_qpc && !ctx_is_cqc && !ctx_is_srqc));
    always_ff @(posedge clk) begin
        if (rg_ctx_ready) begin
            ctx_wr_valid <= rg_ctx_valid;
            qp_ctx_pend <= rg_ctx_valid && rg_ctx_table == rnic_pkg::CTX_TABLE_QPC[3:0];
            srq_ctx_pend <= rg_ctx_valid && rg_ctx_table == rnic_pkg::CTX_TABLE_SRQC[3:0];
            resp_ctx_pend <= rg_ctx_valid && (rg_ctx_table == rnic_pkg::CTX_TABLE_QPC[3:0]
                                              || rg_ctx_table == rnic_pkg::CTX_TABLE_SRQC[3:0]);
            ctx_is_qpc <= rg_ctx_table == rnic_pkg::CTX_TABLE_QPC[3:0];
            ctx_is_cqc <= rg_ctx_table == rnic_pkg::CTX_TABLE_CQC[3:0];
            ctx_is_srqc <= rg_ctx_table == rnic_pkg::CTX_TABLE_SRQC[3:0];
            ctx_is_mpt <= rg_ctx_table == rnic_pkg::CTX_TABLE_MPT[3:0];
            ctx_is_ah <= rg_ctx_table == rnic_pkg::CTX_TABLE_AH[3:0];
            ctx_is_mtt <= rg_ctx_table == rnic_pkg::CTX_TABLE_MTT[3:0];
            ctx_is_mcg <= rg_ctx_table == rnic_pkg::CTX_TABLE_MCG[3:0];
            ctx_wr_op <= rg_ctx_op;
            ctx_wr_index <= rg_ctx_index;
            ctx_wr_data <= rg_ctx_data;
        end else begin
            if (ctx_fire) ctx_wr_valid <= 1'b0;
            if (ctx_go_reg) begin
                qp_ctx_pend <= 1'b0;
                srq_ctx_pend <= 1'b0;
                resp_ctx_pend <= 1'b0;
            end
        end
        if (rst) begin
            ctx_wr_valid <= 1'b0;
            qp_ctx_pend <= 1'b0;
            srq_ctx_pend <= 1'b0;
            resp_ctx_pend <= 1'b0;
        end
        if (rst || !tables_clear) ctx_wr_data <= '0;
    end
    // A QP or SRQ context write is taken in two steps: in the cycle every
    // engine it waits for is ready (each one's ctx_ready: it is idle, takes
    // nothing new while ctx_pend and stays so in the next cycle) ctx_go_reg
    // is set, and in the next cycle the tables are written and the engines
    // reset the QP's state. The engines' readiness and the table decode
    // then end at a flip-flop instead of running on through every context
    // table's write enable into the engines' reset logic (15-16 levels). A
    // CQ context write is taken at once (the CQE writer is held by no
    // ctx_pend: its readiness is a state decode); the other tables no
    // engine writes.
    //
    // The go cycle's strobes are flip-flops set with ctx_go_reg: the QP
    // tables' write enable and the engines' reset, RTR and RTS strobes, and
    // the engines' ctx_pend (each a flip-flop equal to its decode, asserted
    // below). As gates of the context register's bits they were the first
    // two or three levels of the engines' reset and take logic (11-12).
    wire  ctx_eng = ctx_is_qpc || ctx_is_srqc;
    wire  eng_ready = ctx_is_qpc ? (req_ctx_ready && compl_ctx_ready && resp_ctx_ready) : resp_ctx_ready;
    wire  ctx_go_nx = ctx_wr_valid && ctx_eng && eng_ready && tables_clear && !ctx_go_reg;
    // CTX_OP_WRITE resets a QP's or CQ's dynamic state; QP_RTR / QP_RTS load
    // one side's PSN; MODIFY only replaces the context
    wire ctx_reset = ctx_wr_op == rnic_pkg::CTX_OP_WRITE[3:0];
    always_ff @(posedge clk) begin
        ctx_go_reg <= ctx_go_nx;
        qpc_we <= ctx_go_nx && ctx_is_qpc;
        srqc_we <= ctx_go_nx && ctx_is_srqc;
        qp_reset <= ctx_go_nx && ctx_is_qpc && ctx_reset;
        qp_rtr <= ctx_go_nx && ctx_is_qpc && ctx_wr_op == rnic_pkg::CTX_OP_QP_RTR[3:0];
        qp_rts <= ctx_go_nx && ctx_is_qpc && ctx_wr_op == rnic_pkg::CTX_OP_QP_RTS[3:0];
        if (rst) begin
            ctx_go_reg <= 1'b0;
            qpc_we <= 1'b0;
            srqc_we <= 1'b0;
            qp_reset <= 1'b0;
            qp_rtr <= 1'b0;
            qp_rts <= 1'b0;
        end
    end
    assign ctx_wr_ready = tables_clear && (ctx_eng ? ctx_go_reg : ctx_is_cqc ? cqe_ctx_ready : 1'b1);
    wire  ctx_fire = ctx_wr_valid && ctx_wr_ready;
    // the other tables' write enables from their own conditions (one
    // table's readiness, the CQE writer's state decode, reaches no other)
    wire ctx_plain = ctx_wr_valid && tables_clear;
    wire mpt_we = ctx_plain && ctx_is_mpt;
    wire cqc_we = ctx_plain && ctx_is_cqc && cqe_ctx_ready;
    wire [QPN_WIDTH-1:0] ctx_qpn = ctx_wr_index[QPN_WIDTH-1:0];
    wire [23:0] ctx_sq_psn = ctx_wr_data[rnic_pkg::QPC_SQ_PSN_LSB +: rnic_pkg::QPC_SQ_PSN_W];
    wire [23:0] ctx_rq_psn = ctx_wr_data[rnic_pkg::QPC_RQ_PSN_LSB +: rnic_pkg::QPC_RQ_PSN_W];

    // one copy of each table per reader
    logic                           req_qpc_rd_en, resp_qpc_rd_en, req_mpt_rd_en, resp_mpt_rd_en, cqc_rd_en;
    logic                           pl_qpc_rd_en, pl_mpt_rd_en, rr_mpt_rd_en;
    logic [QPN_WIDTH-1:0]           req_qpc_rd_addr, resp_qpc_rd_addr, pl_qpc_rd_addr;
    logic [MR_INDEX_WIDTH-1:0]      req_mpt_rd_addr, resp_mpt_rd_addr, pl_mpt_rd_addr, rr_mpt_rd_addr;
    logic [CQN_WIDTH-1:0]           cqc_rd_addr;
    logic [rnic_pkg::QPC_BITS-1:0]  req_qpc_rd_data, resp_qpc_rd_data, pl_qpc_rd_data;
    logic [rnic_pkg::MPT_BITS-1:0]  req_mpt_rd_data, resp_mpt_rd_data, pl_mpt_rd_data, rr_mpt_rd_data;
    logic [rnic_pkg::CQC_BITS-1:0]  cqc_rd_data;
    logic                           srqc_rd_en;
    logic [SRQ_W-1:0]          srqc_rd_addr;
    logic [rnic_pkg::SRQC_BITS-1:0] srqc_rd_data;

    rnic_ram_1w1r #(.WIDTH(rnic_pkg::QPC_BITS), .ADDR_WIDTH(QPN_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) qpc_req_ram (
        .clk, .rst, .wr_en(qpc_we), .wr_addr(ctx_qpn), .wr_data(ctx_wr_data[rnic_pkg::QPC_BITS-1:0]),
        .rd_en(req_qpc_rd_en), .rd_addr(req_qpc_rd_addr), .rd_data(req_qpc_rd_data),
        .init_done(qpc_req_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::QPC_BITS), .ADDR_WIDTH(QPN_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) qpc_resp_ram (
        .clk, .rst, .wr_en(qpc_we), .wr_addr(ctx_qpn), .wr_data(ctx_wr_data[rnic_pkg::QPC_BITS-1:0]),
        .rd_en(resp_qpc_rd_en), .rd_addr(resp_qpc_rd_addr), .rd_data(resp_qpc_rd_data),
        .init_done(qpc_resp_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::MPT_BITS), .ADDR_WIDTH(MR_INDEX_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) mpt_req_ram (
        .clk, .rst, .wr_en(mpt_we), .wr_addr(ctx_wr_index[MR_INDEX_WIDTH-1:0]), .wr_data(ctx_wr_data[rnic_pkg::MPT_BITS-1:0]),
        .rd_en(req_mpt_rd_en), .rd_addr(req_mpt_rd_addr), .rd_data(req_mpt_rd_data),
        .init_done(mpt_req_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::MPT_BITS), .ADDR_WIDTH(MR_INDEX_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) mpt_resp_ram (
        .clk, .rst, .wr_en(mpt_we), .wr_addr(ctx_wr_index[MR_INDEX_WIDTH-1:0]), .wr_data(ctx_wr_data[rnic_pkg::MPT_BITS-1:0]),
        .rd_en(resp_mpt_rd_en), .rd_addr(resp_mpt_rd_addr), .rd_data(resp_mpt_rd_data),
        .init_done(mpt_resp_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::QPC_BITS), .ADDR_WIDTH(QPN_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) qpc_place_ram (
        .clk, .rst, .wr_en(qpc_we), .wr_addr(ctx_qpn), .wr_data(ctx_wr_data[rnic_pkg::QPC_BITS-1:0]),
        .rd_en(pl_qpc_rd_en), .rd_addr(pl_qpc_rd_addr), .rd_data(pl_qpc_rd_data),
        .init_done(qpc_place_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::MPT_BITS), .ADDR_WIDTH(MR_INDEX_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) mpt_place_ram (
        .clk, .rst, .wr_en(mpt_we), .wr_addr(ctx_wr_index[MR_INDEX_WIDTH-1:0]), .wr_data(ctx_wr_data[rnic_pkg::MPT_BITS-1:0]),
        .rd_en(pl_mpt_rd_en), .rd_addr(pl_mpt_rd_addr), .rd_data(pl_mpt_rd_data),
        .init_done(mpt_place_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::MPT_BITS), .ADDR_WIDTH(MR_INDEX_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) mpt_rdrsp_ram (
        .clk, .rst, .wr_en(mpt_we), .wr_addr(ctx_wr_index[MR_INDEX_WIDTH-1:0]), .wr_data(ctx_wr_data[rnic_pkg::MPT_BITS-1:0]),
        .rd_en(rr_mpt_rd_en), .rd_addr(rr_mpt_rd_addr), .rd_data(rr_mpt_rd_data),
        .init_done(mpt_rdrsp_clear_done));
    // address handles (UD), read by the requester; written through the
    // context window like the MPT (no engine keeps per-AH state)
    logic                          ah_rd_en;
    logic [AH_INDEX_WIDTH-1:0]     ah_rd_addr;
    logic [rnic_pkg::AH_BITS-1:0]  ah_rd_data;
    wire ah_we = ctx_plain && ctx_is_ah;
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::AH_BITS), .ADDR_WIDTH(AH_INDEX_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) ah_ram (
        .clk, .rst, .wr_en(ah_we), .wr_addr(ctx_wr_index[AH_INDEX_WIDTH-1:0]), .wr_data(ctx_wr_data[rnic_pkg::AH_BITS-1:0]),
        .rd_en(ah_rd_en), .rd_addr(ah_rd_addr), .rd_data(ah_rd_data),
        .init_done(ah_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::CQC_BITS), .ADDR_WIDTH(CQN_WIDTH), .WR_DATA_ZERO_IN_CLEAR(1)) cqc_ram (
        .clk, .rst, .wr_en(cqc_we), .wr_addr(ctx_wr_index[CQN_WIDTH-1:0]), .wr_data(ctx_wr_data[rnic_pkg::CQC_BITS-1:0]),
        .rd_en(cqc_rd_en), .rd_addr(cqc_rd_addr), .rd_data(cqc_rd_data),
        .init_done(cqc_clear_done));
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::SRQC_BITS), .ADDR_WIDTH(SRQ_W), .WR_DATA_ZERO_IN_CLEAR(1)) srqc_ram (
        .clk, .rst, .wr_en(srqc_we), .wr_addr(ctx_wr_index[SRQ_W-1:0]), .wr_data(ctx_wr_data[rnic_pkg::SRQC_BITS-1:0]),
        .rd_en(srqc_rd_en), .rd_addr(srqc_rd_addr), .rd_data(srqc_rd_data),
        .init_done(srqc_clear_done));

    // ------------------------------------------------------------------
    // requester: scheduler, transmit engine, completions
    // ------------------------------------------------------------------
    logic                 kick_valid, kick_ready;
    logic [QPN_WIDTH-1:0] kick_qpn;
    logic                 sq_valid, sq_ready;
    logic [QPN_WIDTH-1:0] sq_qpn;
    logic [15:0]          sq_pi;
    logic                 done_valid, done_requeue;
    logic [QPN_WIDTH-1:0] done_qpn;
    logic [15:0]          done_ci;

    // a doorbell for a QPN beyond the table is dropped, never aliased
    wire db_qpn_ok = db_sq_qpn < 16'(1 << QPN_WIDTH);
    logic sched_db_ready;
    assign db_sq_ready = sched_db_ready || !db_qpn_ok;

    rnic_sched #(.QPN_WIDTH(QPN_WIDTH)) sched_inst (
        .clk, .rst,
        .s_db_valid(db_sq_valid && db_qpn_ok), .s_db_ready(sched_db_ready),
        .s_db_qpn(db_sq_qpn[QPN_WIDTH-1:0]), .s_db_pi(db_sq_pi),
        .s_kick_valid(kick_valid), .s_kick_ready(kick_ready), .s_kick_qpn(kick_qpn),
        .m_qp_valid(sq_valid), .m_qp_ready(sq_ready), .m_qp_qpn(sq_qpn), .m_qp_pi(sq_pi),
        .s_done_valid(done_valid), .s_done_qpn(done_qpn), .s_done_ci(done_ci), .s_done_requeue(done_requeue),
        .qp_reset_valid(qp_reset), .qp_reset_qpn(ctx_qpn)
    );

    logic [QPN_WIDTH-1:0] resp_ext_err_qpn, una_qpn, hi_qpn, hi2_qpn;
    logic                 compl_err_val, resp_err_val, compl_err_val_resp;
    logic [15:0]          una_idx, hi_idx, hi2_idx;
    logic [23:0]          una_acked_psn, hi_psn;
    logic [1:0]           una_rewind;
    logic                 una_gap;
    logic                 una_rnr_wait;
    logic [47:0]          hi2_sent_time;

    // free-running cycle counter for the transport timers, in two halves:
    // the upper half steps in the cycle the lower one wraps, told a cycle
    // ahead by a flip-flop (a 48-bit increment is one long carry chain)
    logic [47:0] now_reg;
    logic        now_wrap_reg;   // the lower half is all ones
    always_ff @(posedge clk) begin
        now_reg[23:0] <= now_reg[23:0] + 24'd1;
        now_reg[47:24] <= now_reg[47:24] + 24'(now_wrap_reg);
        now_wrap_reg <= now_reg[23:0] == 24'hff_fffe;
        if (rst) begin
            now_reg <= '0;
            now_wrap_reg <= 1'b0;
        end
    end
`ifndef __ICARUS__
`ifndef SYNTHESIS
    logic [47:0] now_prev;
    logic        now_prev_ok;
    always_ff @(posedge clk) begin
        now_prev <= now_reg;
        now_prev_ok <= !rst;
        if (!rst && now_prev_ok) assert (now_reg == now_prev + 48'd1);
        // a context table is written only when the write is taken
        if (!rst && (qpc_we || mpt_we || cqc_we || srqc_we || ah_we || mtt_we)) assert (ctx_fire);
        // the go cycle's strobes and ctx_pend are their decodes
        if (!rst) begin
            assert (qpc_we == (ctx_plain && ctx_is_qpc && ctx_go_reg));
            assert (srqc_we == (ctx_plain && ctx_is_srqc && ctx_go_reg));
            assert (qp_reset == (qpc_we && ctx_reset));
            assert (qp_rtr == (qpc_we && ctx_wr_op == rnic_pkg::CTX_OP_QP_RTR[3:0]));
            assert (qp_rts == (qpc_we && ctx_wr_op == rnic_pkg::CTX_OP_QP_RTS[3:0]));
            assert (qp_ctx_pend == (ctx_wr_valid && ctx_is_qpc));
            assert (srq_ctx_pend == (ctx_wr_valid && ctx_is_srqc));
            assert (resp_ctx_pend == (qp_ctx_pend || srq_ctx_pend));
        end
    end
`endif
`endif

    logic [63:0] wqe_desc_addr, pay_desc_addr;
    logic [31:0] wqe_desc_len, pay_desc_len;
    logic        wqe_desc_last, wqe_desc_valid, wqe_desc_ready;
    logic        pay_desc_last, pay_desc_valid, pay_desc_ready, pay_desc_inline;
    logic [8*rnic_pkg::MAX_INLINE_BYTES-1:0] pay_desc_inl_data;
    // the payload DMA engine's side of rnic_pay_src
    logic [63:0] payd_addr;
    logic [31:0] payd_len;
    logic        payd_last, payd_valid, payd_ready;
    logic [DATA_WIDTH-1:0] payd_tdata;
    logic [KEEP_WIDTH-1:0] payd_tkeep;
    logic        payd_tvalid, payd_tready, payd_tlast;
    logic [DATA_WIDTH-1:0] wqe_tdata, pay_tdata;
    logic [KEEP_WIDTH-1:0] wqe_tkeep, pay_tkeep;
    logic        wqe_tvalid, wqe_tready, wqe_tlast, pay_tvalid, pay_tready, pay_tlast;
    // the WQE fetch's beats come marked when their read failed (the requester
    // takes WQEs as they arrive); the other read engines use their status only
    logic        wqe_tuser;
    logic        wqe_status_valid, wqe_status_error, pay_status_valid, pay_status_error;

    logic          req_hdr_valid, req_hdr_ready, reqq_valid, reqq_ready, req_hdr_dead;
    logic          req_hdr_pay, reqq_pay;   // the packet carries payload
    logic [HB-1:0] req_hdr, reqq_hdr;
    logic [QPN_WIDTH-1:0] reqq_qpn, req_restart_qpn;
    logic          req_restart;
    logic          inf_wr_en, inf_rd_en;
    logic [QPN_WIDTH+INFLIGHT_LOG2-1:0] inf_wr_addr, inf_rd_addr;
    logic [INF_BITS-1:0] inf_wr_data, inf_rd_data;
    logic          local_valid, local_ready;
    logic [QPN_WIDTH-1:0] local_qpn;
    logic          local_force;
    logic          stat_loc_prot_err;
    logic          rd_wqe_valid;
    logic [QPN_WIDTH-1:0] rd_wqe_qpn;
    logic [15:0]   rd_wqe_idx;
    logic [7:0]    rd_wqe_num_sge;
    logic [8*rnic_pkg::MAX_SEND_SGE*rnic_pkg::SGE_BYTES-1:0] rd_wqe_sges;

    // the QP is in error if either side put it there (both engines' flags
    // read at una_qpn, registered)
    wire req_err_val = compl_err_val || resp_err_val;

    rnic_req_tx #(
        .DATA_WIDTH(DATA_WIDTH),
        .QPN_WIDTH(QPN_WIDTH),
        .MR_INDEX_WIDTH(MR_INDEX_WIDTH),
        .INFLIGHT_LOG2(INFLIGHT_LOG2),
        .INF_BITS(INF_BITS),
        .AH_INDEX_WIDTH(AH_INDEX_WIDTH)
    ) req_tx_inst (
        .clk, .rst, .now(now_reg),
        .s_qp_valid(sq_valid), .s_qp_ready(sq_ready), .s_qp_qpn(sq_qpn), .s_qp_pi(sq_pi),
        .m_done_valid(done_valid), .m_done_qpn(done_qpn), .m_done_ci(done_ci), .m_done_requeue(done_requeue),
        .qpc_rd_en(req_qpc_rd_en), .qpc_rd_addr(req_qpc_rd_addr), .qpc_rd_data(req_qpc_rd_data),
        .mpt_rd_en(req_mpt_rd_en), .mpt_rd_addr(req_mpt_rd_addr), .mpt_rd_data(req_mpt_rd_data),
        .ah_rd_en, .ah_rd_addr, .ah_rd_data,
        .qp_reset_valid(qp_reset), .qp_rts_valid(qp_rts), .qp_reset_qpn(ctx_qpn), .qp_reset_sq_psn(ctx_sq_psn),
        .ctx_pend(qp_ctx_pend), .ctx_ready(req_ctx_ready),
        .err_rd_val(req_err_val),
        .una_rd_qpn(una_qpn), .una_rd_idx(una_idx), .una_rd_acked_psn(una_acked_psn),
        .una_rd_rewind(una_rewind), .una_rd_gap(una_gap), .una_rd_rnr_wait(una_rnr_wait),
        .hi_rd_qpn(hi_qpn), .hi_rd_idx(hi_idx), .hi_rd_psn(hi_psn),
        .hi2_rd_qpn(hi2_qpn), .hi2_rd_idx(hi2_idx), .hi2_rd_sent_time(hi2_sent_time),
        .m_axis_wqe_desc_addr(wqe_desc_addr), .m_axis_wqe_desc_len(wqe_desc_len),
        .m_axis_wqe_desc_last(wqe_desc_last), .m_axis_wqe_desc_valid(wqe_desc_valid),
        .m_axis_wqe_desc_ready(wqe_desc_ready),
        .s_axis_wqe_tdata(wqe_tdata), .s_axis_wqe_tkeep(wqe_tkeep), .s_axis_wqe_tvalid(wqe_tvalid),
        .s_axis_wqe_tready(wqe_tready), .s_axis_wqe_tlast(wqe_tlast), .s_axis_wqe_tuser(wqe_tuser),
        .s_wqe_status_valid(wqe_status_valid), .s_wqe_status_error(wqe_status_error),
        .win_valid(wqe_win_valid), .win_new(wqe_win_new), .win_qpn(wqe_win_qpn), .win_idx(wqe_win_idx), .win_data(wqe_win_data),
        .win_take(wqe_win_take),
        .m_axis_pay_desc_addr(pay_desc_addr), .m_axis_pay_desc_len(pay_desc_len),
        .m_axis_pay_desc_last(pay_desc_last), .m_axis_pay_desc_valid(pay_desc_valid),
        .m_axis_pay_desc_ready(pay_desc_ready),
        .m_axis_pay_desc_inline(pay_desc_inline), .m_axis_pay_desc_inl_data(pay_desc_inl_data),
        .m_hdr_valid(reqq_valid), .m_hdr_ready(reqq_ready), .m_hdr(reqq_hdr), .m_hdr_qpn(reqq_qpn),
        .m_hdr_pay(reqq_pay),
        .m_restart_valid(req_restart), .m_restart_qpn(req_restart_qpn),
        .inf_wr_en, .inf_wr_addr, .inf_wr_data,
        .m_local_valid(local_valid), .m_local_ready(local_ready), .m_local_qpn(local_qpn),
        .m_local_force(local_force),
        .m_rd_wqe_valid(rd_wqe_valid), .m_rd_wqe_qpn(rd_wqe_qpn), .m_rd_wqe_idx(rd_wqe_idx),
        .m_rd_wqe_num_sge(rd_wqe_num_sge), .m_rd_wqe_sges(rd_wqe_sges),
        .mw_req_valid(rq_mw_valid), .mw_req_data(rq_mw_data), .mw_ans_valid(rq_mw_ans_valid), .mw_ans_status,
        .stat_loc_prot_err
    );

    // the window's WQE is taken, or its QP is reset (a stale WQE must not
    // be sent by the QP's next life)
    assign wqe_win_clear = wqe_win_take || (qp_reset && 16'(ctx_qpn) == wqe_win_qpn);

    // The requester's restart reaches the queue a cycle late, registered
    // (its rewind decision, from the completion engine's tables through a
    // subtract, ran on through the queue's kill compares into its head's
    // dead bit: 13 levels). In that cycle the queue's head is held, so no
    // packet of the restarted QP leaves live before the kill lands; the
    // requester pushes none for it before its S_QPC.
    logic                 req_restart_q;
    logic [QPN_WIDTH-1:0] req_restart_qpn_q;
    always_ff @(posedge clk) begin
        req_restart_q <= req_restart && !rst;
        req_restart_qpn_q <= req_restart_qpn;
    end

    // the requester runs ahead of the builder by up to 2^REQ_HDRQ_LOG2
    // packets, their payload reads in flight; a restart or a reset of a QP
    // makes its queued packets stale, and they never reach the wire
    // queued as the bits a request can set (rnic_hdr_pkg::HDR_MASK_REQUEST)
    localparam logic [HB-1:0] REQ_HDR_MASK = rnic_hdr_pkg::HDR_MASK_REQUEST;
    localparam int REQ_HDR_W = rnic_hdr_pkg::hdr_mask_bits(REQ_HDR_MASK);
    logic [REQ_HDR_W-1:0] reqq_hdr_packed, req_hdr_packed;
    rnic_hdr_pack #(.MASK(REQ_HDR_MASK), .W(REQ_HDR_W)) reqq_hdr_pack_inst (
        .hdr(reqq_hdr), .packed_hdr(reqq_hdr_packed)
    );
    rnic_req_hdrq #(.WIDTH(REQ_HDR_W + 1), .DEPTH_LOG2(REQ_HDRQ_LOG2), .QPN_WIDTH(QPN_WIDTH)) req_hdrq_inst (
        .clk, .rst,
        .s_valid(reqq_valid), .s_ready(reqq_ready), .s_data({reqq_pay, reqq_hdr_packed}), .s_qpn(reqq_qpn),
        .kill_a_valid(req_restart_q), .kill_a_qpn(req_restart_qpn_q),
        .kill_b_valid(qp_reset), .kill_b_qpn(QPN_WIDTH'(ctx_qpn)),
        .m_valid(req_hdr_valid), .m_ready(req_hdr_ready), .m_data({req_hdr_pay, req_hdr_packed}), .m_dead(req_hdr_dead)
    );
    rnic_hdr_unpack #(.MASK(REQ_HDR_MASK), .W(REQ_HDR_W)) req_hdr_unpack_inst (
        .packed_hdr(req_hdr_packed), .hdr(req_hdr)
    );

    // payloads in packet order: host-memory reads, or inline bytes
    rnic_pay_src #(.DATA_WIDTH(DATA_WIDTH), .ORDER_LOG2(REQ_HDRQ_LOG2 + 1), .INL_LOG2(REQ_HDRQ_LOG2 - 1)) pay_src_inst (
        .clk, .rst,
        .s_desc_addr(pay_desc_addr), .s_desc_len(pay_desc_len), .s_desc_last(pay_desc_last),
        .s_desc_inline(pay_desc_inline), .s_desc_inl_data(pay_desc_inl_data),
        .s_desc_valid(pay_desc_valid), .s_desc_ready(pay_desc_ready),
        .m_dma_desc_addr(payd_addr), .m_dma_desc_len(payd_len), .m_dma_desc_last(payd_last),
        .m_dma_desc_valid(payd_valid), .m_dma_desc_ready(payd_ready),
        .s_dma_tdata(payd_tdata), .s_dma_tkeep(payd_tkeep), .s_dma_tvalid(payd_tvalid),
        .s_dma_tready(payd_tready), .s_dma_tlast(payd_tlast),
        .m_axis_tdata(pay_tdata), .m_axis_tkeep(pay_tkeep), .m_axis_tvalid(pay_tvalid),
        .m_axis_tready(pay_tready), .m_axis_tlast(pay_tlast)
    );

    // payload read packets (last-marked descriptors) issued and not yet done:
    // only whether any is matters here, a flip-flop of the counter's own (the
    // count's compare behind an adder ran through the completion engine's
    // CQE push into its queue: 10 levels; the descriptor's handshake in
    // front of the adder's carry chain: 9)
    logic [7:0] pay_rd_count_unused;
    logic       pay_rd_busy;
    rnic_updown #(.W(8)) pay_rd_cnt_inst (
        .clk, .rst,
        .up(payd_valid && payd_ready && payd_last), .down(pay_status_valid),
        .count(pay_rd_count_unused), .nonzero(pay_rd_busy)
    );

    logic inflight_init_unused;   // not cleared (ZERO_UNWRITTEN 0): always done
    // the completion engine reads only entries the requester wrote
    rnic_ram_1w1r #(.WIDTH(INF_BITS), .ADDR_WIDTH(QPN_WIDTH + INFLIGHT_LOG2), .ZERO_UNWRITTEN(0)) inflight_ram (
        .clk, .rst, .wr_en(inf_wr_en), .wr_addr(inf_wr_addr), .wr_data(inf_wr_data),
        .rd_en(inf_rd_en), .rd_addr(inf_rd_addr), .rd_data(inf_rd_data), .init_done(inflight_init_unused));

    logic                 ack_valid, ack_ready;
    // UD frames handed to the MAC (rnic_ud_txdone) retire their WQEs as
    // an ACK at their PSN would; they go first, the wire's ACKs wait
    logic                 ud_done_valid, cmp_ack_ready;
    logic [QPN_WIDTH-1:0] ud_done_qpn;
    logic [23:0]          ud_done_psn;
    assign ack_ready = cmp_ack_ready && !ud_done_valid;
    logic [QPN_WIDTH-1:0] ack_qpn;
    logic [23:0]          ack_psn;
    logic [7:0]           ack_syndrome, ack_opcode;
    logic [15:0]          ack_plen;
    logic                 place_valid, place_ready, place_drop;
    logic [15:0]          place_done_cnt;     // placement commands whose writes are answered
    logic                 place_busy_unused;  // (the completion engine waits on place_done_cnt)
    logic [QPN_WIDTH-1:0] place_qpn;
    logic [15:0]          place_idx, place_len;
    logic [31:0]          place_off;
    logic [63:0]          ack_orig, place_data;
    logic                 place_atomic;
    logic                 cqe_valid, cqe_ready;
    logic [15:0]          cqe_cqn, cqe_wqe_counter;
    logic [23:0]          cqe_qpn, cqe_src_qp;
    logic [47:0]          cqe_smac, rcqe_smac;
    logic [7:0]           cqe_opcode, cqe_status, cqe_syndrome;
    logic [31:0]          cqe_byte_len, cqe_imm;
    logic [7:0]           cqe_flags;
    logic                 stat_rx_ack, stat_rx_nak, stat_rx_rnr, stat_retry, stat_timeout;
    // completions from the requester (c*) and the responder (r*)
    logic                 ccqe_valid, ccqe_ready, rcqe_valid, rcqe_ready;
    logic [15:0]          ccqe_cqn, ccqe_wqe_counter, rcqe_cqn, rcqe_wqe_counter;
    logic [23:0]          ccqe_qpn, ccqe_src_qp, rcqe_qpn, rcqe_src_qp;
    logic [7:0]           ccqe_opcode, ccqe_status, ccqe_syndrome, rcqe_opcode, rcqe_status, rcqe_flags;
    logic [31:0]          ccqe_byte_len, rcqe_byte_len, rcqe_imm;
    logic                 errev_valid, errev_ready;
    logic [QPN_WIDTH-1:0] errev_qpn;
    // The completion engine's error events reach the responder through a
    // register slice: the event's valid (a state decode there) chose the
    // responder's next work and its context-read address (12 levels). An
    // event is a request to look at the QP (the responder flushes its
    // receive queue only if the context it reads is in the error state),
    // so one that arrives after the QP's context was written is harmless.
    logic                 cerr_valid, cerr_ready;
    logic [QPN_WIDTH-1:0] cerr_qpn;
    rnic_skid #(.WIDTH(QPN_WIDTH)) errev_skid_inst (
        .clk, .rst,
        .s_valid(cerr_valid), .s_ready(cerr_ready), .s_data(cerr_qpn),
        .m_valid(errev_valid), .m_ready(errev_ready), .m_data(errev_qpn)
    );

    // the responder's completions reach the arbiter through a register
    // slice: its completion valid is deep in its decision, and the grant's
    // ready behind it ran back into that decision (13 levels at 512 bits)
    logic                 rsp_cqe_valid, rsp_cqe_ready;
    logic [15:0]          rsp_cqe_cqn, rsp_cqe_wqe_counter;
    logic [23:0]          rsp_cqe_qpn, rsp_cqe_src_qp;
    logic [47:0]          rsp_cqe_smac;
    logic [7:0]           rsp_cqe_opcode, rsp_cqe_status, rsp_cqe_flags;
    logic [31:0]          rsp_cqe_byte_len, rsp_cqe_imm;
    rnic_skid #(.WIDTH(16 + 24 + 16 + 8 + 8 + 32 + 24 + 48 + 32 + 8)) rcqe_skid_inst (
        .clk, .rst,
        .s_valid(rsp_cqe_valid), .s_ready(rsp_cqe_ready),
        .s_data({rsp_cqe_cqn, rsp_cqe_qpn, rsp_cqe_wqe_counter, rsp_cqe_opcode, rsp_cqe_status, rsp_cqe_byte_len,
                 rsp_cqe_src_qp, rsp_cqe_smac, rsp_cqe_imm, rsp_cqe_flags}),
        .m_valid(rcqe_valid), .m_ready(rcqe_ready),
        .m_data({rcqe_cqn, rcqe_qpn, rcqe_wqe_counter, rcqe_opcode, rcqe_status, rcqe_byte_len,
                 rcqe_src_qp, rcqe_smac, rcqe_imm, rcqe_flags})
    );

    // one CQE writer; the two sources alternate when both wait. The chosen
    // CQE reaches the writer through a register slice: the responder's
    // completion valid is deep in its decision, and the grant behind it
    // otherwise ran on into the writer's CQ-context read address
    logic                 cqa_valid, cqa_ready;
    logic last_was_rcqe_reg;
    wire grant_rcqe = rcqe_valid && (!ccqe_valid || !last_was_rcqe_reg);
    assign cqa_valid = ccqe_valid || rcqe_valid;
    // the completion engine's ready without its own valid (the grant with
    // ccqe_valid set): it is read only with that valid (asserted), and the
    // valid, deep in the engine's state, came back through the grant into
    // its CQE queue's flags (10 levels)
    assign ccqe_ready = !(rcqe_valid && !last_was_rcqe_reg) && cqa_ready;
    assign rcqe_ready = grant_rcqe && cqa_ready;
    rnic_skid #(.WIDTH(16 + 24 + 16 + 8 + 8 + 32 + 24 + 48 + 8 + 32 + 8)) cqe_skid_inst (
        .clk, .rst,
        .s_valid(cqa_valid), .s_ready(cqa_ready),
        .s_data(grant_rcqe ? {rcqe_cqn, rcqe_qpn, rcqe_wqe_counter, rcqe_opcode, rcqe_status, rcqe_byte_len,
                              rcqe_src_qp, rcqe_smac, 8'h0, rcqe_imm, rcqe_flags}
                           : {ccqe_cqn, ccqe_qpn, ccqe_wqe_counter, ccqe_opcode, ccqe_status, ccqe_byte_len,
                              ccqe_src_qp, 48'h0, ccqe_syndrome, 32'h0, 8'h0}),
        .m_valid(cqe_valid), .m_ready(cqe_ready),
        .m_data({cqe_cqn, cqe_qpn, cqe_wqe_counter, cqe_opcode, cqe_status, cqe_byte_len,
                 cqe_src_qp, cqe_smac, cqe_syndrome, cqe_imm, cqe_flags})
    );
    always_ff @(posedge clk) begin
        if (cqa_valid && cqa_ready) last_was_rcqe_reg <= grant_rcqe;
        if (rst) last_was_rcqe_reg <= 1'b0;
    end
`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst && ccqe_valid) assert (ccqe_ready == (!grant_rcqe && cqa_ready));
    end
`endif
`endif

    rnic_compl #(
        .QPN_WIDTH(QPN_WIDTH),
        .INFLIGHT_LOG2(INFLIGHT_LOG2),
        .INF_BITS(INF_BITS)
    ) compl_inst (
        .clk, .rst, .now(now_reg), .pay_rd_busy(pay_rd_busy),
        .s_ack_valid(ack_valid || ud_done_valid), .s_ack_ready(cmp_ack_ready),
        .s_ack_qpn(ud_done_valid ? ud_done_qpn : ack_qpn),
        .s_ack_psn(ud_done_valid ? ud_done_psn : ack_psn),
        .s_ack_syndrome(ud_done_valid ? 8'(rnic_pkg::AETH_CREDITS_INVALID) : ack_syndrome),
        .s_ack_opcode(ud_done_valid ? rnic_pkg::OP_ACKNOWLEDGE[7:0] : ack_opcode),
        .s_ack_plen(ud_done_valid ? 16'd0 : ack_plen),
        .s_ack_orig(ack_orig), .s_ack_local(ud_done_valid), .m_place_atomic(place_atomic), .m_place_data(place_data),
        .m_place_valid(place_valid), .m_place_ready(place_ready), .m_place_drop(place_drop),
        .m_place_qpn(place_qpn), .m_place_idx(place_idx), .m_place_off(place_off), .m_place_len(place_len),
        .place_done_cnt,
        .s_local_valid(local_valid), .s_local_ready(local_ready), .s_local_qpn(local_qpn),
        .s_local_force(local_force),
        .hi_rd_qpn(hi_qpn), .hi_rd_idx(hi_idx), .hi_rd_psn(hi_psn),
        .hi2_rd_qpn(hi2_qpn), .hi2_rd_idx(hi2_idx), .hi2_rd_sent_time(hi2_sent_time),
        .una_rd_qpn(una_qpn), .una_rd_idx(una_idx), .una_rd_acked_psn(una_acked_psn),
        .una_rd_rewind(una_rewind), .una_rd_gap(una_gap), .una_rd_rnr_wait(una_rnr_wait), .una_rd_err(compl_err_val),
        .err2_rd_qpn(resp_ext_err_qpn), .err2_rd_val(compl_err_val_resp),
        .inf_rd_en, .inf_rd_addr, .inf_rd_data,
        .qp_reset_valid(qp_reset), .qp_rts_valid(qp_rts), .qp_cfg_valid(qpc_we),
        .ctx_pend(qp_ctx_pend), .ctx_ready(compl_ctx_ready),
        .qp_reset_qpn(ctx_qpn), .qp_reset_sq_psn(ctx_sq_psn),
        .qp_cfg_retry_cnt(ctx_wr_data[rnic_pkg::QPC_RETRY_CNT_LSB +: rnic_pkg::QPC_RETRY_CNT_W]),
        .qp_cfg_rnr_retry(ctx_wr_data[rnic_pkg::QPC_RNR_RETRY_LSB +: rnic_pkg::QPC_RNR_RETRY_W]),
        .qp_cfg_timeout(ctx_wr_data[rnic_pkg::QPC_TIMEOUT_LSB +: rnic_pkg::QPC_TIMEOUT_W]),
        .qp_cfg_pmtu(ctx_wr_data[rnic_pkg::QPC_PMTU_LSB +: rnic_pkg::QPC_PMTU_W]),
        .m_cqe_valid(ccqe_valid), .m_cqe_ready(ccqe_ready), .m_cqe_cqn(ccqe_cqn), .m_cqe_qpn(ccqe_qpn),
        .m_cqe_wqe_counter(ccqe_wqe_counter), .m_cqe_opcode(ccqe_opcode), .m_cqe_status(ccqe_status),
        .m_cqe_byte_len(ccqe_byte_len), .m_cqe_src_qp(ccqe_src_qp), .m_cqe_syndrome(ccqe_syndrome),
        .m_err_valid(cerr_valid), .m_err_ready(cerr_ready), .m_err_qpn(cerr_qpn),
        .m_kick_valid(kick_valid), .m_kick_ready(kick_ready), .m_kick_qpn(kick_qpn),
        .stat_rx_ack, .stat_rx_nak, .stat_rx_rnr, .stat_retry, .stat_timeout,
        .init_done(compl_clear_done)
    );

    // ------------------------------------------------------------------
    // DMA
    // ------------------------------------------------------------------
    logic [RD_PORTS*AXI_ID_WIDTH-1:0]   rd_arid;
    logic [RD_PORTS*AXI_ADDR_WIDTH-1:0] rd_araddr;
    logic [RD_PORTS*8-1:0]              rd_arlen;
    logic [RD_PORTS*3-1:0]              rd_arsize, rd_arprot;
    logic [RD_PORTS*2-1:0]              rd_arburst, rd_rresp;
    logic [RD_PORTS-1:0]                rd_arlock, rd_arvalid, rd_arready, rd_rlast, rd_rvalid, rd_rready;
    logic [RD_PORTS*4-1:0]              rd_arcache;
    logic [RD_PORTS*AXI_ID_WIDTH-1:0]   rd_rid;
    logic [RD_PORTS*DATA_WIDTH-1:0]     rd_rdata;

    logic [63:0] rwqe_desc_addr;
    logic [31:0] rwqe_desc_len;
    logic        rwqe_desc_last, rwqe_desc_valid, rwqe_desc_ready;
    logic [DATA_WIDTH-1:0] rwqe_tdata;
    logic [KEEP_WIDTH-1:0] rwqe_tkeep;
    logic        rwqe_tvalid, rwqe_tready, rwqe_tlast, rwqe_status_valid, rwqe_status_error;

    logic unused_rwqe_tuser, unused_payd_tuser, unused_rr_tuser, unused_plw_tuser;
    dma_rd #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_RD_RWQE)) rwqe_rd_inst (
        .clk, .rst,
        .s_axis_desc_addr(rwqe_desc_addr), .s_axis_desc_len(rwqe_desc_len), .s_axis_desc_last(rwqe_desc_last),
        .s_axis_desc_valid(rwqe_desc_valid), .s_axis_desc_ready(rwqe_desc_ready),
        .m_axis_read_data_tdata(rwqe_tdata), .m_axis_read_data_tkeep(rwqe_tkeep),
        .m_axis_read_data_tvalid(rwqe_tvalid), .m_axis_read_data_tready(rwqe_tready),
        .m_axis_read_data_tlast(rwqe_tlast), .m_axis_read_data_tuser(unused_rwqe_tuser),
        .m_axis_desc_status_error(rwqe_status_error), .m_axis_desc_status_valid(rwqe_status_valid),
        .m_axi_arid(rd_arid[2*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_araddr(rd_araddr[2*AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH]),
        .m_axi_arlen(rd_arlen[16 +: 8]), .m_axi_arsize(rd_arsize[6 +: 3]), .m_axi_arburst(rd_arburst[4 +: 2]),
        .m_axi_arlock(rd_arlock[2]), .m_axi_arcache(rd_arcache[8 +: 4]), .m_axi_arprot(rd_arprot[6 +: 3]),
        .m_axi_arvalid(rd_arvalid[2]), .m_axi_arready(rd_arready[2]),
        .m_axi_rid(rd_rid[2*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_rdata(rd_rdata[2*DATA_WIDTH +: DATA_WIDTH]),
        .m_axi_rresp(rd_rresp[4 +: 2]), .m_axi_rlast(rd_rlast[2]), .m_axi_rvalid(rd_rvalid[2]),
        .m_axi_rready(rd_rready[2])
    );

    dma_rd #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_RD_WQE), .ALIGNED(1)) wqe_rd_inst (
        .clk, .rst,
        .s_axis_desc_addr(wqe_desc_addr), .s_axis_desc_len(wqe_desc_len), .s_axis_desc_last(wqe_desc_last),
        .s_axis_desc_valid(wqe_desc_valid), .s_axis_desc_ready(wqe_desc_ready),
        .m_axis_read_data_tdata(wqe_tdata), .m_axis_read_data_tkeep(wqe_tkeep),
        .m_axis_read_data_tvalid(wqe_tvalid), .m_axis_read_data_tready(wqe_tready),
        .m_axis_read_data_tlast(wqe_tlast), .m_axis_read_data_tuser(wqe_tuser),
        .m_axis_desc_status_error(wqe_status_error), .m_axis_desc_status_valid(wqe_status_valid),
        .m_axi_arid(rd_arid[0 +: AXI_ID_WIDTH]), .m_axi_araddr(rd_araddr[0 +: AXI_ADDR_WIDTH]),
        .m_axi_arlen(rd_arlen[0 +: 8]), .m_axi_arsize(rd_arsize[0 +: 3]), .m_axi_arburst(rd_arburst[0 +: 2]),
        .m_axi_arlock(rd_arlock[0]), .m_axi_arcache(rd_arcache[0 +: 4]), .m_axi_arprot(rd_arprot[0 +: 3]),
        .m_axi_arvalid(rd_arvalid[0]), .m_axi_arready(rd_arready[0]),
        .m_axi_rid(rd_rid[0 +: AXI_ID_WIDTH]), .m_axi_rdata(rd_rdata[0 +: DATA_WIDTH]),
        .m_axi_rresp(rd_rresp[0 +: 2]), .m_axi_rlast(rd_rlast[0]), .m_axi_rvalid(rd_rvalid[0]),
        .m_axi_rready(rd_rready[0])
    );

    // the requester's payload descriptors through a register slice: the
    // payload engine decides on their length whether to take the next
    // (TX_DMA_LARGE_BYTES), and the length and valid come deep out of the
    // requester
    logic [63:0] payq_addr;
    logic [31:0] payq_len;
    logic        payq_last, payq_valid, payq_ready;
    rnic_skid #(.WIDTH(97)) payd_skid_inst (
        .clk, .rst,
        .s_valid(payd_valid), .s_ready(payd_ready), .s_data({payd_addr, payd_len, payd_last}),
        .m_valid(payq_valid), .m_ready(payq_ready), .m_data({payq_addr, payq_len, payq_last})
    );

    dma_rd #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_RD_PAYLOAD), .MAX_OUTSTANDING(32),
             .BUF_BYTES(TX_DMA_BUF_BYTES), .LARGE_BYTES(TX_DMA_LARGE_BYTES), .LARGE_MAX(TX_DMA_LARGE_MAX),
             .MAX_INFLIGHT_BYTES(TX_DMA_INFLIGHT_BYTES)) pay_rd_inst (
        .clk, .rst,
        .s_axis_desc_addr(payq_addr), .s_axis_desc_len(payq_len), .s_axis_desc_last(payq_last),
        .s_axis_desc_valid(payq_valid), .s_axis_desc_ready(payq_ready),
        .m_axis_read_data_tdata(payd_tdata), .m_axis_read_data_tkeep(payd_tkeep),
        .m_axis_read_data_tvalid(payd_tvalid), .m_axis_read_data_tready(payd_tready),
        .m_axis_read_data_tlast(payd_tlast), .m_axis_read_data_tuser(unused_payd_tuser),
        .m_axis_desc_status_error(pay_status_error), .m_axis_desc_status_valid(pay_status_valid),
        .m_axi_arid(rd_arid[AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_araddr(rd_araddr[AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH]),
        .m_axi_arlen(rd_arlen[8 +: 8]), .m_axi_arsize(rd_arsize[3 +: 3]), .m_axi_arburst(rd_arburst[2 +: 2]),
        .m_axi_arlock(rd_arlock[1]), .m_axi_arcache(rd_arcache[4 +: 4]), .m_axi_arprot(rd_arprot[3 +: 3]),
        .m_axi_arvalid(rd_arvalid[1]), .m_axi_arready(rd_arready[1]),
        .m_axi_rid(rd_rid[AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_rdata(rd_rdata[DATA_WIDTH +: DATA_WIDTH]),
        .m_axi_rresp(rd_rresp[2 +: 2]), .m_axi_rlast(rd_rlast[1]), .m_axi_rvalid(rd_rvalid[1]),
        .m_axi_rready(rd_rready[1])
    );

    // read responses: payload of each packet (port 3); placement: the READ
    // WQE (port 4)
    logic [63:0] rr_desc_addr, plw_desc_addr;
    logic [31:0] rr_desc_len, plw_desc_len;
    logic        rr_desc_last, rr_desc_valid, rr_desc_ready, plw_desc_last, plw_desc_valid, plw_desc_ready;
    logic [DATA_WIDTH-1:0] rr_tdata, plw_tdata;
    logic [KEEP_WIDTH-1:0] rr_tkeep, plw_tkeep;
    logic        rr_tvalid, rr_tready, rr_tlast, plw_tvalid, plw_tready, plw_tlast;
    logic        rr_status_valid, rr_status_error, plw_status_valid, plw_status_error;

    dma_rd #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_RD_RDRSP),
             .MAX_OUTSTANDING(RD_PAY_OUTSTANDING), .BUF_BYTES(TX_DMA_BUF_BYTES),
             .MAX_INFLIGHT_BYTES(TX_DMA_INFLIGHT_BYTES)) rdrsp_rd_inst (
        .clk, .rst,
        .s_axis_desc_addr(rr_desc_addr), .s_axis_desc_len(rr_desc_len), .s_axis_desc_last(rr_desc_last),
        .s_axis_desc_valid(rr_desc_valid), .s_axis_desc_ready(rr_desc_ready),
        .m_axis_read_data_tdata(rr_tdata), .m_axis_read_data_tkeep(rr_tkeep),
        .m_axis_read_data_tvalid(rr_tvalid), .m_axis_read_data_tready(rr_tready),
        .m_axis_read_data_tlast(rr_tlast), .m_axis_read_data_tuser(unused_rr_tuser),
        .m_axis_desc_status_error(rr_status_error), .m_axis_desc_status_valid(rr_status_valid),
        .m_axi_arid(rd_arid[3*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_araddr(rd_araddr[3*AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH]),
        .m_axi_arlen(rd_arlen[24 +: 8]), .m_axi_arsize(rd_arsize[9 +: 3]), .m_axi_arburst(rd_arburst[6 +: 2]),
        .m_axi_arlock(rd_arlock[3]), .m_axi_arcache(rd_arcache[12 +: 4]), .m_axi_arprot(rd_arprot[9 +: 3]),
        .m_axi_arvalid(rd_arvalid[3]), .m_axi_arready(rd_arready[3]),
        .m_axi_rid(rd_rid[3*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_rdata(rd_rdata[3*DATA_WIDTH +: DATA_WIDTH]),
        .m_axi_rresp(rd_rresp[6 +: 2]), .m_axi_rlast(rd_rlast[3]), .m_axi_rvalid(rd_rvalid[3]),
        .m_axi_rready(rd_rready[3])
    );

    dma_rd #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_RD_PLWQE), .ALIGNED(1)) plwqe_rd_inst (
        .clk, .rst,
        .s_axis_desc_addr(plw_desc_addr), .s_axis_desc_len(plw_desc_len), .s_axis_desc_last(plw_desc_last),
        .s_axis_desc_valid(plw_desc_valid), .s_axis_desc_ready(plw_desc_ready),
        .m_axis_read_data_tdata(plw_tdata), .m_axis_read_data_tkeep(plw_tkeep),
        .m_axis_read_data_tvalid(plw_tvalid), .m_axis_read_data_tready(plw_tready),
        .m_axis_read_data_tlast(plw_tlast), .m_axis_read_data_tuser(unused_plw_tuser),
        .m_axis_desc_status_error(plw_status_error), .m_axis_desc_status_valid(plw_status_valid),
        .m_axi_arid(rd_arid[4*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_araddr(rd_araddr[4*AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH]),
        .m_axi_arlen(rd_arlen[32 +: 8]), .m_axi_arsize(rd_arsize[12 +: 3]), .m_axi_arburst(rd_arburst[8 +: 2]),
        .m_axi_arlock(rd_arlock[4]), .m_axi_arcache(rd_arcache[16 +: 4]), .m_axi_arprot(rd_arprot[12 +: 3]),
        .m_axi_arvalid(rd_arvalid[4]), .m_axi_arready(rd_arready[4]),
        .m_axi_rid(rd_rid[4*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_rdata(rd_rdata[4*DATA_WIDTH +: DATA_WIDTH]),
        .m_axi_rresp(rd_rresp[8 +: 2]), .m_axi_rlast(rd_rlast[4]), .m_axi_rvalid(rd_rvalid[4]),
        .m_axi_rready(rd_rready[4])
    );

    axi_rd_mux #(.PORTS(RD_PORTS), .DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH)) rd_mux_inst (
        .clk, .rst,
        .s_axi_arid(rd_arid), .s_axi_araddr(rd_araddr), .s_axi_arlen(rd_arlen), .s_axi_arsize(rd_arsize),
        .s_axi_arburst(rd_arburst), .s_axi_arlock(rd_arlock), .s_axi_arcache(rd_arcache), .s_axi_arprot(rd_arprot),
        .s_axi_arvalid(rd_arvalid), .s_axi_arready(rd_arready),
        .s_axi_rid(rd_rid), .s_axi_rdata(rd_rdata), .s_axi_rresp(rd_rresp), .s_axi_rlast(rd_rlast),
        .s_axi_rvalid(rd_rvalid), .s_axi_rready(rd_rready),
        .m_axi_arid(x_arid), .m_axi_araddr(x_araddr), .m_axi_arlen(x_arlen), .m_axi_arsize(x_arsize),
        .m_axi_arburst(x_arburst), .m_axi_arlock(x_arlock), .m_axi_arcache(x_arcache), .m_axi_arprot(x_arprot),
        .m_axi_arvalid(x_arvalid), .m_axi_arready(x_arready),
        .m_axi_rid, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast, .m_axi_rvalid, .m_axi_rready
    );

    logic [WR_PORTS*AXI_ID_WIDTH-1:0]   wr_awid, wr_bid;
    logic [WR_PORTS*AXI_ADDR_WIDTH-1:0] wr_awaddr;
    logic [WR_PORTS*8-1:0]              wr_awlen;
    logic [WR_PORTS*3-1:0]              wr_awsize, wr_awprot;
    logic [WR_PORTS*2-1:0]              wr_awburst, wr_bresp;
    logic [WR_PORTS-1:0]                wr_awlock, wr_awvalid, wr_awready, wr_wlast, wr_wvalid, wr_wready;
    logic [WR_PORTS-1:0]                wr_bvalid, wr_bready;
    logic [WR_PORTS*4-1:0]              wr_awcache;
    logic [WR_PORTS*DATA_WIDTH-1:0]     wr_wdata;
    logic [WR_PORTS*KEEP_WIDTH-1:0]     wr_wstrb;

    logic [63:0] pw_desc_addr, cw_desc_addr;
    logic [31:0] pw_desc_len, cw_desc_len;
    logic        pw_desc_valid, pw_desc_ready, cw_desc_valid, cw_desc_ready;
    logic [DATA_WIDTH-1:0] pw_tdata, cw_tdata;
    logic [KEEP_WIDTH-1:0] pw_tkeep, cw_tkeep;
    logic        pw_tvalid, pw_tready, pw_tlast, cw_tvalid, cw_tready, cw_tlast;
    logic        pw_status_valid, pw_status_error, cw_status_valid, cw_status_error;

    // the responder's payload through the write buffer (block RAM): without
    // it the responder moved a 4 KiB packet at the host's 54 B/cycle (76
    // cycles) and spent its per-packet states on top, more than the 84
    // cycles in which the wire brings the next one
    logic [DATA_WIDTH-1:0] pwb_tdata;
    logic [KEEP_WIDTH-1:0] pwb_tkeep;
    logic                  pwb_tvalid, pwb_tready, pwb_tlast;
    logic                  pwb_user_unused, pwb_ovf_unused, pwb_bad_unused, pwb_good_unused;
    logic [$clog2(RX_WR_BUF_BYTES / KEEP_WIDTH):0] pwb_level_unused;
    axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .DEPTH_BYTES(RX_WR_BUF_BYTES),
        .FRAME_FIFO(0), .DROP_BAD_FRAME(0)
    ) pay_wr_buf_inst (
        .clk, .rst,
        .s_axis_tdata(pw_tdata), .s_axis_tkeep(pw_tkeep), .s_axis_tvalid(pw_tvalid),
        .s_axis_tready(pw_tready), .s_axis_tlast(pw_tlast), .s_axis_tuser(1'b0),
        .m_axis_tdata(pwb_tdata), .m_axis_tkeep(pwb_tkeep), .m_axis_tvalid(pwb_tvalid),
        .m_axis_tready(pwb_tready), .m_axis_tlast(pwb_tlast), .m_axis_tuser(pwb_user_unused),
        .status_overflow(pwb_ovf_unused), .status_bad_frame(pwb_bad_unused),
        .status_good_frame(pwb_good_unused), .status_level(pwb_level_unused)
    );

    dma_wr #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_WR_PAYLOAD),
             .MAX_OUTSTANDING(RX_WR_OUTSTANDING)) pay_wr_inst (
        .clk, .rst,
        .s_axis_desc_addr(pw_desc_addr), .s_axis_desc_len(pw_desc_len),
        .s_axis_desc_valid(pw_desc_valid), .s_axis_desc_ready(pw_desc_ready),
        .s_axis_write_data_tdata(pwb_tdata), .s_axis_write_data_tkeep(pwb_tkeep),
        .s_axis_write_data_tvalid(pwb_tvalid), .s_axis_write_data_tready(pwb_tready),
        .s_axis_write_data_tlast(pwb_tlast),
        .m_axis_desc_status_error(pw_status_error), .m_axis_desc_status_valid(pw_status_valid),
        .m_axi_awid(wr_awid[0 +: AXI_ID_WIDTH]), .m_axi_awaddr(wr_awaddr[0 +: AXI_ADDR_WIDTH]),
        .m_axi_awlen(wr_awlen[0 +: 8]), .m_axi_awsize(wr_awsize[0 +: 3]), .m_axi_awburst(wr_awburst[0 +: 2]),
        .m_axi_awlock(wr_awlock[0]), .m_axi_awcache(wr_awcache[0 +: 4]), .m_axi_awprot(wr_awprot[0 +: 3]),
        .m_axi_awvalid(wr_awvalid[0]), .m_axi_awready(wr_awready[0]),
        .m_axi_wdata(wr_wdata[0 +: DATA_WIDTH]), .m_axi_wstrb(wr_wstrb[0 +: KEEP_WIDTH]),
        .m_axi_wlast(wr_wlast[0]), .m_axi_wvalid(wr_wvalid[0]), .m_axi_wready(wr_wready[0]),
        .m_axi_bid(wr_bid[0 +: AXI_ID_WIDTH]), .m_axi_bresp(wr_bresp[0 +: 2]),
        .m_axi_bvalid(wr_bvalid[0]), .m_axi_bready(wr_bready[0])
    );

    dma_wr #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_WR_CQE),
             .MAX_OUTSTANDING(CQE_WR_OUTSTANDING)) cqe_wr_dma_inst (
        .clk, .rst,
        .s_axis_desc_addr(cw_desc_addr), .s_axis_desc_len(cw_desc_len),
        .s_axis_desc_valid(cw_desc_valid), .s_axis_desc_ready(cw_desc_ready),
        .s_axis_write_data_tdata(cw_tdata), .s_axis_write_data_tkeep(cw_tkeep),
        .s_axis_write_data_tvalid(cw_tvalid), .s_axis_write_data_tready(cw_tready),
        .s_axis_write_data_tlast(cw_tlast),
        .m_axis_desc_status_error(cw_status_error), .m_axis_desc_status_valid(cw_status_valid),
        .m_axi_awid(wr_awid[AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_awaddr(wr_awaddr[AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH]),
        .m_axi_awlen(wr_awlen[8 +: 8]), .m_axi_awsize(wr_awsize[3 +: 3]), .m_axi_awburst(wr_awburst[2 +: 2]),
        .m_axi_awlock(wr_awlock[1]), .m_axi_awcache(wr_awcache[4 +: 4]), .m_axi_awprot(wr_awprot[3 +: 3]),
        .m_axi_awvalid(wr_awvalid[1]), .m_axi_awready(wr_awready[1]),
        .m_axi_wdata(wr_wdata[DATA_WIDTH +: DATA_WIDTH]), .m_axi_wstrb(wr_wstrb[KEEP_WIDTH +: KEEP_WIDTH]),
        .m_axi_wlast(wr_wlast[1]), .m_axi_wvalid(wr_wvalid[1]), .m_axi_wready(wr_wready[1]),
        .m_axi_bid(wr_bid[AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_bresp(wr_bresp[2 +: 2]),
        .m_axi_bvalid(wr_bvalid[1]), .m_axi_bready(wr_bready[1])
    );

    // READ response placement (port 2)
    logic [63:0] plw2_desc_addr;
    logic [31:0] plw2_desc_len;
    logic        plw2_desc_valid, plw2_desc_ready;
    logic [DATA_WIDTH-1:0] plw2_tdata;
    logic [KEEP_WIDTH-1:0] plw2_tkeep;
    logic        plw2_tvalid, plw2_tready, plw2_tlast, plw2_status_valid, plw2_status_error;

    dma_wr #(.DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH), .AXI_ID(ID_WR_PLACE)) place_wr_inst (
        .clk, .rst,
        .s_axis_desc_addr(plw2_desc_addr), .s_axis_desc_len(plw2_desc_len),
        .s_axis_desc_valid(plw2_desc_valid), .s_axis_desc_ready(plw2_desc_ready),
        .s_axis_write_data_tdata(plw2_tdata), .s_axis_write_data_tkeep(plw2_tkeep),
        .s_axis_write_data_tvalid(plw2_tvalid), .s_axis_write_data_tready(plw2_tready),
        .s_axis_write_data_tlast(plw2_tlast),
        .m_axis_desc_status_error(plw2_status_error), .m_axis_desc_status_valid(plw2_status_valid),
        .m_axi_awid(wr_awid[2*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_awaddr(wr_awaddr[2*AXI_ADDR_WIDTH +: AXI_ADDR_WIDTH]),
        .m_axi_awlen(wr_awlen[16 +: 8]), .m_axi_awsize(wr_awsize[6 +: 3]), .m_axi_awburst(wr_awburst[4 +: 2]),
        .m_axi_awlock(wr_awlock[2]), .m_axi_awcache(wr_awcache[8 +: 4]), .m_axi_awprot(wr_awprot[6 +: 3]),
        .m_axi_awvalid(wr_awvalid[2]), .m_axi_awready(wr_awready[2]),
        .m_axi_wdata(wr_wdata[2*DATA_WIDTH +: DATA_WIDTH]), .m_axi_wstrb(wr_wstrb[2*KEEP_WIDTH +: KEEP_WIDTH]),
        .m_axi_wlast(wr_wlast[2]), .m_axi_wvalid(wr_wvalid[2]), .m_axi_wready(wr_wready[2]),
        .m_axi_bid(wr_bid[2*AXI_ID_WIDTH +: AXI_ID_WIDTH]), .m_axi_bresp(wr_bresp[4 +: 2]),
        .m_axi_bvalid(wr_bvalid[2]), .m_axi_bready(wr_bready[2])
    );

    // the multiplexer's write data, into the slice below
    logic [DATA_WIDTH-1:0] mx_wdata;
    logic [KEEP_WIDTH-1:0] mx_wstrb;
    logic                  mx_wlast, mx_wvalid, mx_wready;

    axi_wr_mux #(.PORTS(WR_PORTS), .DATA_WIDTH(DATA_WIDTH), .AXI_ID_WIDTH(AXI_ID_WIDTH)) wr_mux_inst (
        .clk, .rst,
        .s_axi_awid(wr_awid), .s_axi_awaddr(wr_awaddr), .s_axi_awlen(wr_awlen), .s_axi_awsize(wr_awsize),
        .s_axi_awburst(wr_awburst), .s_axi_awlock(wr_awlock), .s_axi_awcache(wr_awcache), .s_axi_awprot(wr_awprot),
        .s_axi_awvalid(wr_awvalid), .s_axi_awready(wr_awready),
        .s_axi_wdata(wr_wdata), .s_axi_wstrb(wr_wstrb), .s_axi_wlast(wr_wlast),
        .s_axi_wvalid(wr_wvalid), .s_axi_wready(wr_wready),
        .s_axi_bid(wr_bid), .s_axi_bresp(wr_bresp), .s_axi_bvalid(wr_bvalid), .s_axi_bready(wr_bready),
        .m_axi_awid(x_awid), .m_axi_awaddr(x_awaddr), .m_axi_awlen(x_awlen), .m_axi_awsize(x_awsize),
        .m_axi_awburst(x_awburst), .m_axi_awlock(x_awlock), .m_axi_awcache(x_awcache), .m_axi_awprot(x_awprot),
        .m_axi_awvalid(x_awvalid), .m_axi_awready(x_awready),
        .m_axi_wdata(mx_wdata), .m_axi_wstrb(mx_wstrb), .m_axi_wlast(mx_wlast), .m_axi_wvalid(mx_wvalid),
        .m_axi_wready(mx_wready),
        .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready
    );

    // The write data reaches the translator through a register slice: its
    // ready (the translator's count of open bursts) ran on through the
    // multiplexer's port choice into every write engine's output register
    // and the packers behind them (10-11 levels, some 4,000 path ends at
    // 512 bits). A written beat leaves a cycle later; the address channel
    // is not delayed.
    rnic_skid #(.WIDTH(DATA_WIDTH + KEEP_WIDTH + 1)) w_skid_inst (
        .clk, .rst,
        .s_valid(mx_wvalid), .s_ready(mx_wready), .s_data({mx_wdata, mx_wstrb, mx_wlast}),
        .m_valid(x_wvalid), .m_ready(x_wready), .m_data({x_wdata, x_wstrb, x_wlast})
    );

    // MR pages: the address channels go through the MTT
    logic [AXI_ID_WIDTH-1:0]   x_arid, x_awid;
    logic [AXI_ADDR_WIDTH-1:0] x_araddr, x_awaddr;
    logic [7:0]                x_arlen, x_awlen;
    logic [2:0]                x_arsize, x_arprot, x_awsize, x_awprot;
    logic [1:0]                x_arburst, x_awburst;
    logic                      x_arlock, x_arvalid, x_arready, x_awlock, x_awvalid, x_awready;
    logic [3:0]                x_arcache, x_awcache;
    logic [DATA_WIDTH-1:0]     x_wdata;
    logic [KEEP_WIDTH-1:0]     x_wstrb;
    logic                      x_wlast, x_wvalid, x_wready;
    wire mtt_we = ctx_plain && ctx_is_mtt;

    rnic_axi_xlate #(
        .DATA_WIDTH(DATA_WIDTH),
        .AXI_ADDR_WIDTH(AXI_ADDR_WIDTH),
        .AXI_ID_WIDTH(AXI_ID_WIDTH),
        .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH)
    ) xlate_inst (
        .clk, .rst,
        .mtt_wr_en(mtt_we), .mtt_wr_addr(ctx_wr_index[MTT_INDEX_WIDTH-1:0]),
        .mtt_wr_data(ctx_wr_data[rnic_pkg::MTT_BITS-1:0]),
        .s_axi_arid(x_arid), .s_axi_araddr(x_araddr), .s_axi_arlen(x_arlen), .s_axi_arsize(x_arsize),
        .s_axi_arburst(x_arburst), .s_axi_arlock(x_arlock), .s_axi_arcache(x_arcache), .s_axi_arprot(x_arprot),
        .s_axi_arvalid(x_arvalid), .s_axi_arready(x_arready),
        .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst, .m_axi_arlock,
        .m_axi_arcache, .m_axi_arprot, .m_axi_arvalid, .m_axi_arready,
        .s_axi_awid(x_awid), .s_axi_awaddr(x_awaddr), .s_axi_awlen(x_awlen), .s_axi_awsize(x_awsize),
        .s_axi_awburst(x_awburst), .s_axi_awlock(x_awlock), .s_axi_awcache(x_awcache), .s_axi_awprot(x_awprot),
        .s_axi_awvalid(x_awvalid), .s_axi_awready(x_awready),
        .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst, .m_axi_awlock,
        .m_axi_awcache, .m_axi_awprot, .m_axi_awvalid, .m_axi_awready,
        .s_axi_wdata(x_wdata), .s_axi_wstrb(x_wstrb), .s_axi_wlast(x_wlast), .s_axi_wvalid(x_wvalid),
        .s_axi_wready(x_wready),
        .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready
    );

    logic stat_cqe, stat_cq_overrun;

    rnic_cqe_wr #(.DATA_WIDTH(DATA_WIDTH), .CQN_WIDTH(CQN_WIDTH), .OWN_LOG2($clog2(CQE_WR_OUTSTANDING) - 1)) cqe_wr_inst (
        .clk, .rst,
        .s_cqe_valid(cqe_valid), .s_cqe_ready(cqe_ready), .s_cqe_cqn(cqe_cqn), .s_cqe_qpn(cqe_qpn),
        .s_cqe_wqe_counter(cqe_wqe_counter), .s_cqe_opcode(cqe_opcode), .s_cqe_status(cqe_status),
        .s_cqe_byte_len(cqe_byte_len), .s_cqe_src_qp(cqe_src_qp), .s_cqe_syndrome(cqe_syndrome),
        .s_cqe_imm(cqe_imm), .s_cqe_flags(cqe_flags), .s_cqe_smac(cqe_smac),
        .cqc_rd_en, .cqc_rd_addr, .cqc_rd_data,
        .cq_reset_valid(cqc_we && ctx_reset), .cq_reset_cqn(ctx_wr_index[CQN_WIDTH-1:0]),
        .ctx_ready(cqe_ctx_ready),
        .db_cq_valid, .db_cq_cqn, .db_cq_ci,
        .m_axis_desc_addr(cw_desc_addr), .m_axis_desc_len(cw_desc_len),
        .m_axis_desc_valid(cw_desc_valid), .m_axis_desc_ready(cw_desc_ready),
        .m_axis_data_tdata(cw_tdata), .m_axis_data_tkeep(cw_tkeep), .m_axis_data_tvalid(cw_tvalid),
        .m_axis_data_tready(cw_tready), .m_axis_data_tlast(cw_tlast),
        .s_status_valid(cw_status_valid), .s_status_error(cw_status_error),
        .stat_cqe, .stat_cq_overrun, .stat_cq_overrun_cqn
    );

    // ------------------------------------------------------------------
    // transmit: responder ACKs, requester packets and READ responses share
    // the builder, round robin per packet; a small FIFO remembers whose
    // payload each granted packet carries, so the payload streams follow
    // their headers in order
    // ------------------------------------------------------------------
    logic          resp_ack_valid, resp_ack_ready;
    logic [HB-1:0] resp_ack_hdr;
    // the responder's ACKs reach the arbiter through a register slice: the
    // responder decides whether an ACK may go (its queue, the READ
    // responses pending for the QP) deep in its logic, and the arbiter's
    // grant and the builder's descriptor would otherwise be behind that
    logic          ra_valid, ra_ready;
    logic [HB-1:0] ra_hdr;
    logic          rr_hdr_valid, rr_hdr_ready, rr_hdr_pay;
    logic [HB-1:0] rr_hdr;
    logic          tx_hdr_valid, tx_hdr_ready;
    logic [HB-1:0] tx_hdr;
    logic [1:0]    last_src_reg;
    logic [1:0]    grant;         // 0 ACK, 1 requester, 2 READ response, 3 none

    // whose payload comes next: the requester's, a READ response's, or a
    // stale requester packet's, which is read and thrown away
    localparam int PSRC_LOG2 = 2;
    localparam logic [1:0] PSRC_REQ = 2'd0, PSRC_RR = 2'd1, PSRC_DROP = 2'd2;
    logic [1:0]          psrc_mem [2**PSRC_LOG2];
    logic [PSRC_LOG2:0]  psrc_wr_reg, psrc_rd_reg;
    // The head's kind is one-hot flip-flops (all clear while the queue is
    // empty) and full a flip-flop, both set a cycle ahead: the payload
    // engine's tready, and its DMA engine's and packer's 512-bit output
    // registers behind it, start from them instead of the pointers' compare
    // and the head's read and decode. The next head is prepared for both
    // outcomes of the pop (the entry after the head, or this cycle's push).
    logic psrc_req_reg, psrc_rr_reg, psrc_drop_reg, psrc_full_reg;
    wire  psrc_full = psrc_full_reg;

    // whether a packet carries payload comes with its header as a flag (the
    // requester's and the READ responses' queues hold it beside the header;
    // the responder's ACKs carry none, asserted below): the payload-order
    // queue's push and the stale packets' drop, and through them the
    // queues' pops, then start from a flip-flop or a queue's read, not from
    // a compare of the granted header's 16-bit length
    // The responder's ACKs reach the arbiter through a half-rate slice
    // (rnic_half_slice: one ACK held, no skid register): the builder takes
    // a header every second cycle at the most, and an ACK that finds the
    // slice full is queued in the READ engine instead (rnic_resp).
    // While a header without payload of the READ engine waits for the
    // slice to empty (rr_can), the slice takes no new ACK (the responder
    // queues it in the READ engine, behind): so the slice empties within
    // a grant and that header cannot starve behind a stream of ACKs.
    // Registered, so the responder's ready stays two flip-flops; one more
    // ACK may enter in the cycle the wait begins.
    logic ra_block_reg;
    logic ra_slice_ready;
    always_ff @(posedge clk) begin
        ra_block_reg <= rr_hdr_valid && !rr_hdr_pay && resp_ack_valid;
        if (rst) ra_block_reg <= 1'b0;
    end
    assign ra_ready = ra_slice_ready && !ra_block_reg;
    rnic_half_slice #(.WIDTH(HB)) ack_slice_inst (
        .clk, .rst,
        .s_valid(ra_valid && !ra_block_reg), .s_ready(ra_slice_ready), .s_data(ra_hdr),
        .m_valid(resp_ack_valid), .m_ready(resp_ack_ready), .m_data(resp_ack_hdr)
    );
    wire ack_can = resp_ack_valid;
    // A stale packet with payload leaves the queue without the builder and
    // pushes a drop entry into the payload-order queue, which takes one push
    // a cycle: it goes in a cycle in which no READ response with payload is
    // waiting, or, once it has waited a cycle, the READ responses' payload
    // packets wait one cycle for it (drop_turn_reg), so neither starves. The
    // drop is thus decided from queue heads and flip-flops, not from the
    // grant and the builder's ready behind it, and the requester queue's pop
    // stays shallow (the grant's result into the drop into the pop was 9
    // levels). Whether a READ response's payload packet may go (the queue
    // not full and no drop's turn) is one flip-flop, set a cycle ahead, so
    // the READ responses' grant, and their queue's pop behind it, are no
    // deeper for the drop's turn.
    logic drop_turn_reg, rr_pay_block_reg;
    wire req_dead_head = req_hdr_valid && !req_restart_q && req_hdr_dead;
    wire req_can = req_hdr_valid && !req_restart_q && !req_hdr_dead && (!req_hdr_pay || !psrc_full);
    // A header without payload from the READ engine (an ACK queued there,
    // or a READ response of no bytes) goes only while the responder's ACK
    // slice is empty: an ACK queued there because the slice was full must
    // not pass an older ACK of its QP still in the slice (rnic_resp)
    wire rr_can = rr_hdr_valid && (rr_hdr_pay ? !rr_pay_block_reg : !resp_ack_valid);

    always_comb begin
        grant = 2'd3;
        case (last_src_reg)
            2'd0: grant = req_can ? 2'd1 : rr_can ? 2'd2 : ack_can ? 2'd0 : 2'd3;
            2'd1: grant = rr_can ? 2'd2 : ack_can ? 2'd0 : req_can ? 2'd1 : 2'd3;
            default: grant = ack_can ? 2'd0 : req_can ? 2'd1 : rr_can ? 2'd2 : 2'd3;
        endcase
    end

    assign tx_hdr_valid = grant != 2'd3;
    assign tx_hdr = (grant == 2'd0) ? resp_ack_hdr : (grant == 2'd2) ? rr_hdr : req_hdr;
    assign resp_ack_ready = grant == 2'd0 && tx_hdr_ready;
    wire tx_pay = (grant == 2'd1 && req_hdr_pay) || (grant == 2'd2 && rr_hdr_pay);
    wire tx_psrc_push = tx_hdr_valid && tx_hdr_ready && tx_pay;
    wire req_drop = req_dead_head
                    && (!req_hdr_pay || (!psrc_full && (drop_turn_reg || !(rr_hdr_valid && rr_hdr_pay))));
    assign req_hdr_ready = (grant == 2'd1 && tx_hdr_ready) || req_drop;
    assign rr_hdr_ready = grant == 2'd2 && tx_hdr_ready;

    logic [DATA_WIDTH-1:0] txp_tdata;
    logic [KEEP_WIDTH-1:0] txp_tkeep;
    logic                  txp_tvalid, txp_tready, txp_tlast;
    assign txp_tdata = psrc_rr_reg ? rr_tdata : pay_tdata;
    assign txp_tkeep = psrc_rr_reg ? rr_tkeep : pay_tkeep;
    assign txp_tlast = psrc_rr_reg ? rr_tlast : pay_tlast;
    assign txp_tvalid = (psrc_rr_reg && rr_tvalid) || (psrc_req_reg && pay_tvalid);
    assign pay_tready = psrc_drop_reg || (psrc_req_reg && txp_tready);
    assign rr_tready = psrc_rr_reg && txp_tready;
    wire drop_last = psrc_drop_reg && pay_tvalid && pay_tlast;

    wire       psrc_push = tx_psrc_push || (req_drop && req_hdr_pay);
    wire [1:0] psrc_push_kind = !tx_psrc_push ? PSRC_DROP : (grant == 2'd2) ? PSRC_RR : PSRC_REQ;
    wire       psrc_pop = (txp_tvalid && txp_tready && txp_tlast) || drop_last;
    // the count steps by choosing among registers (rnic_updown): as the
    // count's sum with the steps, the payload's last beat (through the pop)
    // stood in front of the adder's carry chain (10 levels)
    logic [PSRC_LOG2:0] psrc_cnt;
    logic               psrc_any;
    rnic_updown #(.W(PSRC_LOG2 + 1)) psrc_cnt_inst (
        .clk, .rst, .up(psrc_push), .down(psrc_pop), .count(psrc_cnt), .nonzero(psrc_any)
    );
    wire [PSRC_LOG2:0] psrc_rd_p1 = psrc_rd_reg + 1'b1;
    wire [1:0] psrc_second = psrc_mem[psrc_rd_p1[PSRC_LOG2-1:0]];
    wire       psrc_has2 = psrc_cnt > (PSRC_LOG2+1)'(1);
    wire       psrc_take2 = psrc_pop && psrc_has2;
    wire       psrc_nx_any = psrc_take2 || psrc_push;
    wire [1:0] psrc_nx_kind = psrc_take2 ? psrc_second : psrc_push_kind;

    // the payload reaches the builder through a register slice: the choice
    // of source (the order queue's head) and the payload engine's beat
    // otherwise ran on through the builder's state into its header shift
    // register and the packer's lane counts (12 levels)
    logic [DATA_WIDTH-1:0] ptp_tdata;
    logic [KEEP_WIDTH-1:0] ptp_tkeep;
    logic                  ptp_tvalid, ptp_tready, ptp_tlast;
    rnic_skid #(.WIDTH(DATA_WIDTH + KEEP_WIDTH + 1)) tx_pay_skid_inst (
        .clk, .rst,
        .s_valid(txp_tvalid), .s_ready(txp_tready), .s_data({txp_tlast, txp_tkeep, txp_tdata}),
        .m_valid(ptp_tvalid), .m_ready(ptp_tready), .m_data({ptp_tlast, ptp_tkeep, ptp_tdata})
    );

    // a push while full is never granted (req_can, rr_can, req_drop)
    wire psrc_full_nx = psrc_pop ? 1'b0
                        : psrc_full_reg || (psrc_push && psrc_cnt == (PSRC_LOG2+1)'(2**PSRC_LOG2 - 1));
    wire drop_turn_nx = req_dead_head && req_hdr_pay && !req_drop;

    always_ff @(posedge clk) begin
        if (tx_hdr_valid && tx_hdr_ready) last_src_reg <= grant;
        drop_turn_reg <= drop_turn_nx;
        rr_pay_block_reg <= psrc_full_nx || drop_turn_nx;
        if (psrc_push) begin
            psrc_mem[psrc_wr_reg[PSRC_LOG2-1:0]] <= psrc_push_kind;
            psrc_wr_reg <= psrc_wr_reg + 1'b1;
        end
        if (psrc_pop) psrc_rd_reg <= psrc_rd_p1;
        psrc_full_reg <= psrc_full_nx;
        // a new head after a pop or onto an empty queue: the entry after the
        // head, else this cycle's push, else none
        if (psrc_pop || !psrc_any) begin
            psrc_req_reg <= psrc_nx_any && psrc_nx_kind == PSRC_REQ;
            psrc_rr_reg <= psrc_nx_any && psrc_nx_kind == PSRC_RR;
            psrc_drop_reg <= psrc_nx_any && psrc_nx_kind == PSRC_DROP;
        end
        if (rst) begin
            last_src_reg <= 2'd0;
            drop_turn_reg <= 1'b0;
            rr_pay_block_reg <= 1'b0;
            psrc_wr_reg <= '0;
            psrc_rd_reg <= '0;
            psrc_full_reg <= 1'b0;
            psrc_req_reg <= 1'b0;
            psrc_rr_reg <= 1'b0;
            psrc_drop_reg <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the payload flags are the headers' lengths; the responder's ACKs carry none
    localparam int PL = rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB, PW = rnic_hdr_pkg::HDR_PAYLOAD_LEN_W;
    always_ff @(posedge clk) begin
        if (!rst && reqq_valid) assert (reqq_pay == (reqq_hdr[PL +: PW] != 0));
        if (!rst && req_hdr_valid) assert (req_hdr_pay == (req_hdr[PL +: PW] != 0));
        if (!rst && rr_hdr_valid) assert (rr_hdr_pay == (rr_hdr[PL +: PW] != 0));
        if (!rst && resp_ack_valid) assert (resp_ack_hdr[PL +: PW] == 0);
        // the payload-order queue's registers are what its pointers and head say
        if (!rst) begin
            assert (psrc_cnt == psrc_wr_reg - psrc_rd_reg);
            assert (psrc_full_reg == (psrc_cnt == (PSRC_LOG2+1)'(2**PSRC_LOG2)));
            assert (!(psrc_push && psrc_full_reg));
            assert (rr_pay_block_reg == (psrc_full_reg || drop_turn_reg));
            // one push a cycle: a stale packet's drop never beside a granted payload
            assert (!(tx_psrc_push && req_drop && req_hdr_pay));
            assert ((psrc_req_reg || psrc_rr_reg || psrc_drop_reg) == (psrc_cnt != 0));
            if (psrc_cnt != 0)
                assert ({psrc_req_reg, psrc_rr_reg, psrc_drop_reg}
                        == {psrc_mem[psrc_rd_reg[PSRC_LOG2-1:0]] == PSRC_REQ, psrc_mem[psrc_rd_reg[PSRC_LOG2-1:0]] == PSRC_RR,
                            psrc_mem[psrc_rd_reg[PSRC_LOG2-1:0]] == PSRC_DROP});
        end
    end
`endif
`endif

    // UD send completions: which frames leaving the builder were UD sends
    logic ptx_hdr_ready, ud_room;
    assign tx_hdr_ready = ptx_hdr_ready && ud_room;
    rnic_ud_txdone #(.QPN_WIDTH(QPN_WIDTH)) ud_txdone_inst (
        .clk, .rst,
        .s_hdr_take(tx_hdr_valid && tx_hdr_ready), .s_hdr(tx_hdr), .room(ud_room),
        .s_frame_done(m_axis_tx_tvalid && m_axis_tx_tready && m_axis_tx_tlast),
        .m_valid(ud_done_valid), .m_ready(cmp_ack_ready), .m_qpn(ud_done_qpn), .m_psn(ud_done_psn)
    );

    rnic_pkt_tx #(.DATA_WIDTH(DATA_WIDTH)) pkt_tx_inst (
        .clk, .rst,
        .cfg_port_mac, .cfg_gid,
        .s_hdr_valid(tx_hdr_valid && ud_room), .s_hdr_ready(ptx_hdr_ready), .s_hdr(tx_hdr),
        .s_axis_payload_tdata(ptp_tdata), .s_axis_payload_tkeep(ptp_tkeep),
        .s_axis_payload_tvalid(ptp_tvalid), .s_axis_payload_tready(ptp_tready),
        .s_axis_payload_tlast(ptp_tlast),
        .m_axis_tx_tdata, .m_axis_tx_tkeep, .m_axis_tx_tvalid, .m_axis_tx_tready,
        .m_axis_tx_tlast, .m_axis_tx_tuser
    );

    // ------------------------------------------------------------------
    // receive: check -> frame FIFO (drops bad frames) -> parse -> dispatch
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] chk_tdata, fifo_tdata, rxp_tdata, req_pay_tdata;
    logic [KEEP_WIDTH-1:0] chk_tkeep, fifo_tkeep, rxp_tkeep, req_pay_tkeep;
    logic chk_tvalid, chk_tready, chk_tlast, chk_tuser;
    logic fifo_tvalid, fifo_tready, fifo_tlast, fifo_tuser;
    logic rxp_tvalid, rxp_tready, rxp_tlast;
    logic req_pay_tvalid, req_pay_tready, req_pay_tlast;
    logic stat_good, stat_not_roce, stat_bad_udp_port, stat_bad_ip_csum, stat_bad_icrc, stat_chk_malformed;
    logic fifo_overflow, fifo_bad_frame, fifo_good_frame;
    logic [$clog2(RX_FIFO_BYTES / KEEP_WIDTH):0] fifo_level;

    rnic_rx_check #(.DATA_WIDTH(DATA_WIDTH)) rx_check_inst (
        .clk, .rst,
        .s_axis_rx_tdata, .s_axis_rx_tkeep, .s_axis_rx_tvalid, .s_axis_rx_tready,
        .s_axis_rx_tlast, .s_axis_rx_tuser,
        .m_axis_tdata(chk_tdata), .m_axis_tkeep(chk_tkeep), .m_axis_tvalid(chk_tvalid),
        .m_axis_tready(chk_tready), .m_axis_tlast(chk_tlast), .m_axis_tuser(chk_tuser),
        .stat_good, .stat_not_roce, .stat_bad_udp_port, .stat_bad_ip_csum, .stat_bad_icrc,
        .stat_malformed(stat_chk_malformed)
    );

    axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH),
        .DEPTH_BYTES(RX_FIFO_BYTES),
        .FRAME_FIFO(1),
        .DROP_BAD_FRAME(1),
        .USER_WIDTH(1)
    ) rx_fifo_inst (
        .clk, .rst,
        .s_axis_tdata(chk_tdata), .s_axis_tkeep(chk_tkeep), .s_axis_tvalid(chk_tvalid),
        .s_axis_tready(chk_tready), .s_axis_tlast(chk_tlast), .s_axis_tuser(chk_tuser),
        .m_axis_tdata(fifo_tdata), .m_axis_tkeep(fifo_tkeep), .m_axis_tvalid(fifo_tvalid),
        .m_axis_tready(fifo_tready), .m_axis_tlast(fifo_tlast), .m_axis_tuser(fifo_tuser),
        .status_overflow(fifo_overflow), .status_bad_frame(fifo_bad_frame), .status_good_frame(fifo_good_frame),
        .status_level(fifo_level)
    );

    logic stat_pause_rise, stat_pause_stall;
    localparam int RXF_LEVEL_BYTES_W = $clog2(RX_FIFO_BYTES) + 1;

    rnic_rx_pause #(.LEVEL_WIDTH(RXF_LEVEL_BYTES_W)) rx_pause_inst (
        .clk, .rst,
        .cfg_en(cfg_fc_en), .cfg_xoff(cfg_fc_xoff), .cfg_xon(cfg_fc_xon), .cfg_stall(cfg_fc_stall),
        .fifo_level_bytes(RXF_LEVEL_BYTES_W'(fifo_level) * RXF_LEVEL_BYTES_W'(KEEP_WIDTH)),
        .fifo_drain(fifo_tvalid && fifo_tready),
        .pause_req(mac_pause_req), .stat_rise(stat_pause_rise), .stat_stall(stat_pause_stall)
    );

    logic          rxh_valid, rxh_ready, rxh_bad;
    logic [HB-1:0] rxh;

    rnic_pkt_rx #(.DATA_WIDTH(DATA_WIDTH)) pkt_rx_inst (
        .clk, .rst,
        .s_axis_tdata(fifo_tdata), .s_axis_tkeep(fifo_tkeep), .s_axis_tvalid(fifo_tvalid),
        .s_axis_tready(fifo_tready), .s_axis_tlast(fifo_tlast),
        .m_hdr_valid(rxh_valid), .m_hdr_ready(rxh_ready), .m_hdr(rxh), .m_hdr_bad(rxh_bad),
        .m_axis_payload_tdata(rxp_tdata), .m_axis_payload_tkeep(rxp_tkeep), .m_axis_payload_tvalid(rxp_tvalid),
        .m_axis_payload_tready(rxp_tready), .m_axis_payload_tlast(rxp_tlast)
    );

    logic          drq_valid, drq_ready, rq_valid, rq_ready;
    logic [HB-1:0] drq_hdr, rq_hdr;
    logic [DATA_WIDTH-1:0] rsp_pay_tdata;
    logic [KEEP_WIDTH-1:0] rsp_pay_tkeep;
    logic                  rsp_pay_tvalid, rsp_pay_tready, rsp_pay_tlast;
    logic          stat_not_ours, stat_disp_malformed, stat_disp_drop_qpn;

    // The wire's ACKs and READ responses reach the completion engine through
    // a register slice: the dispatcher's classification of a header (its
    // MAC, GIDs, QPN and opcode) then ends at the slice instead of running on
    // through the completion engine's choice into the requester's in-flight
    // record. A READ response's payload may reach the placement engine's
    // buffer a cycle before its header reaches the completion engine. The
    // slice coalesces plain ACKs of one QP (rnic_ack_coalesce): the engine
    // takes an ACK in about ten cycles, a peer acknowledging every small
    // message sends one in about eight, and a queue of them would hold the
    // dispatcher, and every request behind it, on the receive path.
    logic                 dack_valid, dack_ready;
    logic [QPN_WIDTH-1:0] dack_qpn;
    logic [23:0]          dack_psn;
    logic [7:0]           dack_syndrome, dack_opcode;
    logic [15:0]          dack_plen;
    logic [63:0]          dack_orig;
    logic                 ack_coalesced;   // an ACK the slice dropped for a later one of its QP
    rnic_ack_coalesce #(.QPN_WIDTH(QPN_WIDTH)) rx_ack_coalesce_inst (
        .clk, .rst,
        .s_valid(dack_valid), .s_ready(dack_ready),
        .s_qpn(dack_qpn), .s_psn(dack_psn), .s_syndrome(dack_syndrome), .s_opcode(dack_opcode),
        .s_plen(dack_plen), .s_orig(dack_orig),
        .m_valid(ack_valid), .m_ready(ack_ready),
        .m_qpn(ack_qpn), .m_psn(ack_psn), .m_syndrome(ack_syndrome), .m_opcode(ack_opcode),
        .m_plen(ack_plen), .m_orig(ack_orig), .m_coalesced(ack_coalesced)
    );

    // The wire's requests reach the multicast copier through a register
    // slice too: the dispatcher's classification otherwise ran on through
    // the copier's group lookup and the GRH stage's state (14 levels). The
    // payload waits in the dispatcher's stream for its header. A half-rate
    // slice (no skid register): a request frame is two beats at the least
    // at 512 bits, and the responder spends several cycles on each.
    rnic_half_slice #(.WIDTH(HB)) rx_req_slice_inst (
        .clk, .rst,
        .s_valid(drq_valid), .s_ready(drq_ready), .s_data(drq_hdr),
        .m_valid(rq_valid), .m_ready(rq_ready), .m_data(rq_hdr)
    );

    rnic_rx_dispatch #(.DATA_WIDTH(DATA_WIDTH), .QPN_WIDTH(QPN_WIDTH)) dispatch_inst (
        .clk, .rst,
        .s_hdr_valid(rxh_valid), .s_hdr_ready(rxh_ready), .s_hdr(rxh), .s_hdr_bad(rxh_bad),
        .s_axis_payload_tdata(rxp_tdata), .s_axis_payload_tkeep(rxp_tkeep),
        .s_axis_payload_tvalid(rxp_tvalid), .s_axis_payload_tready(rxp_tready),
        .s_axis_payload_tlast(rxp_tlast),
        .cfg_port_mac, .cfg_gid,
        .m_req_valid(drq_valid), .m_req_ready(drq_ready), .m_req_hdr(drq_hdr),
        .m_axis_req_payload_tdata(req_pay_tdata), .m_axis_req_payload_tkeep(req_pay_tkeep),
        .m_axis_req_payload_tvalid(req_pay_tvalid), .m_axis_req_payload_tready(req_pay_tready),
        .m_axis_req_payload_tlast(req_pay_tlast),
        .m_ack_valid(dack_valid), .m_ack_ready(dack_ready), .m_ack_qpn(dack_qpn), .m_ack_psn(dack_psn),
        .m_ack_syndrome(dack_syndrome), .m_ack_opcode(dack_opcode), .m_ack_plen(dack_plen), .m_ack_orig(dack_orig),
        .m_axis_rsp_payload_tdata(rsp_pay_tdata), .m_axis_rsp_payload_tkeep(rsp_pay_tkeep),
        .m_axis_rsp_payload_tvalid(rsp_pay_tvalid), .m_axis_rsp_payload_tready(rsp_pay_tready),
        .m_axis_rsp_payload_tlast(rsp_pay_tlast),
        .stat_not_ours, .stat_malformed(stat_disp_malformed), .stat_drop_qpn(stat_disp_drop_qpn)
    );

    logic          rdjob_valid, rdjob_ready;
    logic [HB-1:0] rdjob_hdr;
    logic [63:0]   rdjob_va;
    logic [31:0]   rdjob_rkey;
    logic [15:0]   rdjob_pd;
    logic          stat_rr_access_err;
    logic [31:0]   rdjob_len;
    logic [2:0]    rdjob_pmtu;
    logic [QPN_WIDTH-1:0] rdjob_qpn_a, rdjob_qpn_b, rgen_rd_qpn;
    logic                 rdjob_qpn_sel;
    logic [3:0]    rdjob_gen, rgen_rd_val;
    logic [QPN_WIDTH-1:0] rdcnt_rd_qpn;
    logic [3:0]    rdcnt_rd_gen;
    logic [7:0]    rdcnt_rd_val;
    logic          rdjob_raw, pend_rd_val, pend_at_val;
    logic [QPN_WIDTH-1:0] pend_rd_qpn_a, pend_rd_qpn_b, pend_at_qpn;
    logic                 pend_rd_sel;
    logic [33:0]   pend_at_line, rdjob_span_first;
    logic [MR_INDEX_WIDTH-1:0] pend_at_mr;
    logic [34:0]   rdjob_span_last;
    logic          rdjob_span_nz, rdjob_plain;
    logic          stat_tx_read_resp, stat_pl_loc_prot_err;

    rnic_rd_resp #(.QPN_WIDTH(QPN_WIDTH), .MR_INDEX_WIDTH(MR_INDEX_WIDTH), .JOBS_LOG2(RD_JOBS_LOG2),
                   .PAYQ_LOG2(RD_PAYQ_LOG2)) rd_resp_inst (
        .clk, .rst,
        .s_job_valid(rdjob_valid), .s_job_ready(rdjob_ready), .s_job_hdr(rdjob_hdr),
        .s_job_va(rdjob_va), .s_job_rkey(rdjob_rkey), .s_job_pd(rdjob_pd),
        .s_job_len(rdjob_len), .s_job_pmtu(rdjob_pmtu),
        .mpt_rd_en(rr_mpt_rd_en), .mpt_rd_addr(rr_mpt_rd_addr), .mpt_rd_data(rr_mpt_rd_data),
        .s_job_qpn_a(rdjob_qpn_a), .s_job_qpn_b(rdjob_qpn_b), .s_job_qpn_sel(rdjob_qpn_sel), .s_job_gen(rdjob_gen), .s_job_raw(rdjob_raw), .s_job_plain(rdjob_plain),
        .s_job_span_first(rdjob_span_first), .s_job_span_last(rdjob_span_last), .s_job_span_nz(rdjob_span_nz),
        .rgen_rd_qpn, .rgen_rd_val,
        .cnt_rd_qpn(rdcnt_rd_qpn), .cnt_rd_gen(rdcnt_rd_gen), .cnt_rd_val(rdcnt_rd_val),
        .qp_reset_valid(qp_reset), .qp_reset_qpn(ctx_qpn), .pend_rd_qpn_a, .pend_rd_qpn_b, .pend_rd_sel, .pend_rd_val, .pend_at_qpn, .pend_at_line, .pend_at_mr, .pend_at_val,
        .m_hdr_valid(rr_hdr_valid), .m_hdr_ready(rr_hdr_ready), .m_hdr(rr_hdr), .m_hdr_pay(rr_hdr_pay),
        .m_axis_pay_desc_addr(rr_desc_addr), .m_axis_pay_desc_len(rr_desc_len),
        .m_axis_pay_desc_last(rr_desc_last), .m_axis_pay_desc_valid(rr_desc_valid),
        .m_axis_pay_desc_ready(rr_desc_ready), .s_pay_status_valid(rr_status_valid),
        .stat_tx_read_resp, .stat_access_err(stat_rr_access_err)
    );

    rnic_rd_place #(
        .DATA_WIDTH(DATA_WIDTH),
        .QPN_WIDTH(QPN_WIDTH),
        .MR_INDEX_WIDTH(MR_INDEX_WIDTH),
        .INFLIGHT_LOG2(INFLIGHT_LOG2),
        .RDC_LOG2(RD_PLACE_LOG2_EFF)
    ) rd_place_inst (
        .clk, .rst,
        .s_cmd_valid(place_valid), .s_cmd_ready(place_ready), .s_cmd_drop(place_drop),
        .s_cmd_qpn(place_qpn), .s_cmd_idx(place_idx), .s_cmd_off(place_off), .s_cmd_len(place_len),
        .s_cmd_atomic(place_atomic), .s_cmd_data(place_data),
        .s_axis_payload_tdata(rsp_pay_tdata), .s_axis_payload_tkeep(rsp_pay_tkeep),
        .s_axis_payload_tvalid(rsp_pay_tvalid), .s_axis_payload_tready(rsp_pay_tready),
        .s_axis_payload_tlast(rsp_pay_tlast),
        .qpc_rd_en(pl_qpc_rd_en), .qpc_rd_addr(pl_qpc_rd_addr), .qpc_rd_data(pl_qpc_rd_data),
        .mpt_rd_en(pl_mpt_rd_en), .mpt_rd_addr(pl_mpt_rd_addr), .mpt_rd_data(pl_mpt_rd_data),
        .qp_reset_valid(qp_reset),
        .s_rd_wqe_valid(rd_wqe_valid), .s_rd_wqe_qpn(rd_wqe_qpn), .s_rd_wqe_idx(rd_wqe_idx),
        .s_rd_wqe_num_sge(rd_wqe_num_sge), .s_rd_wqe_sges(rd_wqe_sges),
        .m_axis_wqe_desc_addr(plw_desc_addr), .m_axis_wqe_desc_len(plw_desc_len),
        .m_axis_wqe_desc_last(plw_desc_last), .m_axis_wqe_desc_valid(plw_desc_valid),
        .m_axis_wqe_desc_ready(plw_desc_ready),
        .s_axis_wqe_tdata(plw_tdata), .s_axis_wqe_tkeep(plw_tkeep), .s_axis_wqe_tvalid(plw_tvalid),
        .s_axis_wqe_tready(plw_tready), .s_axis_wqe_tlast(plw_tlast),
        .s_wqe_status_valid(plw_status_valid), .s_wqe_status_error(plw_status_error),
        .m_axis_wr_desc_addr(plw2_desc_addr), .m_axis_wr_desc_len(plw2_desc_len),
        .m_axis_wr_desc_valid(plw2_desc_valid), .m_axis_wr_desc_ready(plw2_desc_ready),
        .m_axis_wr_data_tdata(plw2_tdata), .m_axis_wr_data_tkeep(plw2_tkeep), .m_axis_wr_data_tvalid(plw2_tvalid),
        .m_axis_wr_data_tready(plw2_tready), .m_axis_wr_data_tlast(plw2_tlast),
        .s_wr_status_valid(plw2_status_valid), .s_wr_status_error(plw2_status_error),
        .busy(place_busy_unused), .done_cnt(place_done_cnt),
        .stat_loc_prot_err(stat_pl_loc_prot_err),
        .init_done(rd_place_clear_done)
    );

    logic stat_resp_drop_qpn, stat_psn_err, stat_duplicate, stat_access_err, stat_tx_ack, stat_tx_nak;
    logic stat_tx_rnr, stat_recv_cqe;

    // an RQ doorbell for a QPN (an SRQ doorbell for an SRQN) beyond the
    // table is dropped, never aliased
    wire db_rq_qpn_ok = db_rq_qpn < (db_rq_srq ? 16'(1 << SRQ_W) : 16'(1 << QPN_WIDTH));
    // The responder takes the doorbell from a register slice: it writes the
    // index into its table in the cycle it takes it, and the range check and
    // the doorbell register's decode ran on into that write (13 levels)
    logic                 resp_rqdb_ready, rqdb_skid_ready, rqdb_valid, rqdb_srq;
    logic [QPN_WIDTH-1:0] rqdb_qpn;
    logic [15:0]          rqdb_pi;
    assign db_rq_ready = rqdb_skid_ready || !db_rq_qpn_ok;
    rnic_skid #(.WIDTH(QPN_WIDTH + 16 + 1)) rqdb_skid_inst (
        .clk, .rst,
        .s_valid(db_rq_valid && db_rq_qpn_ok), .s_ready(rqdb_skid_ready),
        .s_data({db_rq_qpn[QPN_WIDTH-1:0], db_rq_pi, db_rq_srq}),
        .m_valid(rqdb_valid), .m_ready(resp_rqdb_ready), .m_data({rqdb_qpn, rqdb_pi, rqdb_srq}));

    // multicast: a packet for the multicast QPN once per attached QP
    logic                  mc_valid, mc_ready, stat_mcast_drop, stat_mcast_copy;
    logic [HB-1:0]         mc_hdr;
    logic [DATA_WIDTH-1:0] mc_tdata;
    logic [KEEP_WIDTH-1:0] mc_tkeep;
    logic                  mc_tvalid, mc_tready, mc_tlast;
    rnic_mcast_rep #(.DATA_WIDTH(DATA_WIDTH), .QPN_WIDTH(QPN_WIDTH)) mcast_rep_inst (
        .clk, .rst,
        .s_hdr_valid(rq_valid), .s_hdr_ready(rq_ready), .s_hdr(rq_hdr),
        .s_axis_tdata(req_pay_tdata), .s_axis_tkeep(req_pay_tkeep), .s_axis_tvalid(req_pay_tvalid),
        .s_axis_tready(req_pay_tready), .s_axis_tlast(req_pay_tlast),
        .m_hdr_valid(mc_valid), .m_hdr_ready(mc_ready), .m_hdr(mc_hdr),
        .m_axis_tdata(mc_tdata), .m_axis_tkeep(mc_tkeep), .m_axis_tvalid(mc_tvalid),
        .m_axis_tready(mc_tready), .m_axis_tlast(mc_tlast),
        .mcg_wr_en(ctx_plain && ctx_is_mcg),
        .mcg_wr_index(ctx_wr_index[rnic_pkg::MCAST_BUCKET_BITS:0]),
        .mcg_wr_data(ctx_wr_data[rnic_pkg::MCG_BITS-1:0]),
        .init_done(mcg_clear_done),
        .stat_drop(stat_mcast_drop), .stat_copy(stat_mcast_copy)
    );

    // UD requests: the GRH area in front of the payload
    logic                  ug_valid, ug_ready, stat_qkey_drop, stat_ud_no_wqe;
    logic [HB-1:0]         ug_hdr;
    logic [DATA_WIDTH-1:0] ug_tdata;
    logic [KEEP_WIDTH-1:0] ug_tkeep;
    logic                  ug_tvalid, ug_tready, ug_tlast;
    // the payload reaches the responder through a register slice: its
    // tready comes from how many bytes the beat has, and the receive path's
    // readiness (multicast copier, GRH, dispatcher, parser) would otherwise
    // all be behind that. The slice carries each beat's byte count, so the
    // responder's piece decisions start at registers.
    localparam int BCNT_W = $clog2(KEEP_WIDTH) + 1;
    logic [DATA_WIDTH-1:0] rsp_tdata;
    logic [KEEP_WIDTH-1:0] rsp_tkeep;
    logic [BCNT_W-1:0]     ug_tbytes, rsp_tbytes;
    logic [BCNT_W-2:0]     ug_first_unused;
    logic                  rsp_tvalid, rsp_tready, rsp_tlast;
    axis_keep_run #(.KEEP_WIDTH(KEEP_WIDTH)) resp_pay_run_inst (
        .keep(ug_tkeep), .first(ug_first_unused), .run_end(ug_tbytes)
    );
    rnic_skid #(.WIDTH(DATA_WIDTH + KEEP_WIDTH + 1 + BCNT_W)) resp_pay_skid_inst (
        .clk, .rst,
        .s_valid(ug_tvalid), .s_ready(ug_tready), .s_data({ug_tbytes, ug_tlast, ug_tkeep, ug_tdata}),
        .m_valid(rsp_tvalid), .m_ready(rsp_tready), .m_data({rsp_tbytes, rsp_tlast, rsp_tkeep, rsp_tdata})
    );
    rnic_ud_grh #(.DATA_WIDTH(DATA_WIDTH)) ud_grh_inst (
        .clk, .rst,
        .s_hdr_valid(mc_valid), .s_hdr_ready(mc_ready), .s_hdr(mc_hdr),
        .s_axis_tdata(mc_tdata), .s_axis_tkeep(mc_tkeep), .s_axis_tvalid(mc_tvalid),
        .s_axis_tready(mc_tready), .s_axis_tlast(mc_tlast),
        .m_hdr_valid(ug_valid), .m_hdr_ready(ug_ready), .m_hdr(ug_hdr),
        .m_axis_tdata(ug_tdata), .m_axis_tkeep(ug_tkeep), .m_axis_tvalid(ug_tvalid),
        .m_axis_tready(ug_tready), .m_axis_tlast(ug_tlast)
    );

    rnic_resp #(
        .DATA_WIDTH(DATA_WIDTH),
        .QPN_WIDTH(QPN_WIDTH),
        .SRQN_WIDTH(SRQ_W),
        .MR_INDEX_WIDTH(MR_INDEX_WIDTH)
    ) resp_inst (
        .clk, .rst,
        .s_hdr_valid(ug_valid), .s_hdr_ready(ug_ready), .s_hdr(ug_hdr),
        .s_axis_payload_tdata(rsp_tdata), .s_axis_payload_tkeep(rsp_tkeep), .s_axis_payload_tbytes(rsp_tbytes),
        .s_axis_payload_tvalid(rsp_tvalid), .s_axis_payload_tready(rsp_tready),
        .s_axis_payload_tlast(rsp_tlast),
        .s_rqdb_valid(rqdb_valid), .s_rqdb_ready(resp_rqdb_ready),
        .s_rqdb_qpn(rqdb_qpn), .s_rqdb_pi(rqdb_pi), .s_rqdb_srq(rqdb_srq),
        .s_errev_valid(errev_valid), .s_errev_ready(errev_ready), .s_errev_qpn(errev_qpn),
        .qpc_rd_en(resp_qpc_rd_en), .qpc_rd_addr(resp_qpc_rd_addr), .qpc_rd_data(resp_qpc_rd_data),
        .mpt_rd_en(resp_mpt_rd_en), .mpt_rd_addr(resp_mpt_rd_addr), .mpt_rd_data(resp_mpt_rd_data),
        .srqc_rd_en, .srqc_rd_addr, .srqc_rd_data,
        .srq_ctx_valid(srqc_we), .srq_ctx_reset(ctx_reset), .srq_ctx_srqn(ctx_wr_index[SRQ_W-1:0]),
        .srq_ctx_limit(ctx_wr_data[rnic_pkg::SRQC_LIMIT_LSB +: rnic_pkg::SRQC_LIMIT_W]),
        .evt_srq_limit_valid, .evt_srq_limit_srqn, .evt_last_wqe_valid, .evt_last_wqe_qpn,
        .evt_resp_err_valid, .evt_resp_err_type, .evt_resp_err_qpn,
        .qp_reset_valid(qp_reset), .qp_rtr_valid(qp_rtr), .qp_reset_qpn(ctx_qpn), .qp_reset_rq_psn(ctx_rq_psn),
        .ctx_pend(resp_ctx_pend), .ctx_ready(resp_ctx_ready),
        .err_rd_qpn(una_qpn), .err_rd_val(resp_err_val),
        .ext_err_qpn(resp_ext_err_qpn), .ext_err_val(compl_err_val_resp),
        .m_axis_wr_desc_addr(pw_desc_addr), .m_axis_wr_desc_len(pw_desc_len),
        .m_axis_wr_desc_valid(pw_desc_valid), .m_axis_wr_desc_ready(pw_desc_ready),
        .m_axis_wr_data_tdata(pw_tdata), .m_axis_wr_data_tkeep(pw_tkeep), .m_axis_wr_data_tvalid(pw_tvalid),
        .m_axis_wr_data_tready(pw_tready), .m_axis_wr_data_tlast(pw_tlast),
        .m_axis_rwqe_desc_addr(rwqe_desc_addr), .m_axis_rwqe_desc_len(rwqe_desc_len),
        .m_axis_rwqe_desc_last(rwqe_desc_last), .m_axis_rwqe_desc_valid(rwqe_desc_valid),
        .m_axis_rwqe_desc_ready(rwqe_desc_ready),
        .s_axis_rwqe_tdata(rwqe_tdata), .s_axis_rwqe_tkeep(rwqe_tkeep), .s_axis_rwqe_tvalid(rwqe_tvalid),
        .s_axis_rwqe_tready(rwqe_tready), .s_axis_rwqe_tlast(rwqe_tlast),
        .s_rwqe_status_valid(rwqe_status_valid), .s_rwqe_status_error(rwqe_status_error),
        .s_wr_status_valid(pw_status_valid), .s_wr_status_error(pw_status_error),
        .m_ack_valid(ra_valid), .m_ack_ready(ra_ready), .m_ack_hdr(ra_hdr),
        .m_rdjob_valid(rdjob_valid), .m_rdjob_ready(rdjob_ready), .m_rdjob_hdr(rdjob_hdr),
        .m_rdjob_va(rdjob_va), .m_rdjob_rkey(rdjob_rkey), .m_rdjob_pd(rdjob_pd), .m_rdjob_len(rdjob_len), .m_rdjob_pmtu(rdjob_pmtu),
        .m_rdjob_qpn_a(rdjob_qpn_a), .m_rdjob_qpn_b(rdjob_qpn_b), .m_rdjob_qpn_sel(rdjob_qpn_sel), .m_rdjob_gen(rdjob_gen), .m_rdjob_raw(rdjob_raw), .m_rdjob_plain(rdjob_plain),
        .m_rdjob_span_first(rdjob_span_first), .m_rdjob_span_last(rdjob_span_last), .m_rdjob_span_nz(rdjob_span_nz),
        .pend_rd_qpn_a, .pend_rd_qpn_b, .pend_rd_sel, .pend_rd_val, .pend_at_qpn, .pend_at_line, .pend_at_mr, .pend_at_val, .rgen_rd_qpn, .rgen_rd_val,
        .rdcnt_rd_qpn, .rdcnt_rd_gen, .rdcnt_rd_val,
        .m_cqe_valid(rsp_cqe_valid), .m_cqe_ready(rsp_cqe_ready), .m_cqe_cqn(rsp_cqe_cqn), .m_cqe_qpn(rsp_cqe_qpn),
        .m_cqe_wqe_counter(rsp_cqe_wqe_counter), .m_cqe_opcode(rsp_cqe_opcode), .m_cqe_status(rsp_cqe_status),
        .m_cqe_byte_len(rsp_cqe_byte_len), .m_cqe_imm(rsp_cqe_imm), .m_cqe_flags(rsp_cqe_flags),
        .m_cqe_src_qp(rsp_cqe_src_qp), .m_cqe_smac(rsp_cqe_smac),
        .m_inv_valid(inv_req_valid), .m_inv_qpn(inv_req_qpn), .m_inv_rkey(inv_req_rkey),
        .s_inv_ans_valid(inv_ans_valid), .s_inv_ans_status(mw_ans_status),
        .s_inv_taken(mw_taken && mw_sel_inv_reg),
        .stat_drop_qpn(stat_resp_drop_qpn), .stat_qkey_drop, .stat_ud_no_wqe,
        .stat_psn_err, .stat_duplicate, .stat_access_err,
        .stat_tx_ack, .stat_tx_nak, .stat_tx_rnr, .stat_recv_cqe
    );

    // ------------------------------------------------------------------
    // counters
    // ------------------------------------------------------------------
    function automatic logic [15:0] popcount(input logic [KEEP_WIDTH-1:0] k);
        logic [15:0] n;
        n = '0;
        for (int i = 0; i < KEEP_WIDTH; i++) n = n + 16'(k[i]);
        popcount = n;
    endfunction

    wire tx_beat = m_axis_tx_tvalid && m_axis_tx_tready;
    wire rx_beat = s_axis_rx_tvalid && s_axis_rx_tready;

    always_comb begin
        stat_inc_d = '0;
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_FRAMES) +: 16] = 16'(tx_beat && m_axis_tx_tlast);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_BYTES) +: 16] = tx_beat ? popcount(m_axis_tx_tkeep) : 16'd0;
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_FRAMES) +: 16] = 16'(rx_beat && s_axis_rx_tlast);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_BYTES) +: 16] = rx_beat ? popcount(s_axis_rx_tkeep) : 16'd0;
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_NOT_ROCE) +: 16] = 16'(stat_not_roce) + 16'(stat_not_ours);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_UDP_PORT) +: 16] = 16'(stat_bad_udp_port);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_IP_CSUM) +: 16] = 16'(stat_bad_ip_csum);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_ICRC) +: 16] = 16'(stat_bad_icrc);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_MALFORMED) +: 16] =
            16'(stat_chk_malformed) + 16'(stat_disp_malformed);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_OVERFLOW) +: 16] = 16'(fifo_overflow);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_WQE_WINDOW) +: 16] = 16'(wqe_win_take);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DROP_QPN) +: 16] = 16'(stat_disp_drop_qpn) + 16'(stat_resp_drop_qpn);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_PSN_ERR) +: 16] = 16'(stat_psn_err);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_DUPLICATE) +: 16] = 16'(stat_duplicate);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_ACK) +: 16] = 16'(stat_tx_ack);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_NAK) +: 16] = 16'(stat_tx_nak);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_ACK) +: 16] = 16'(stat_rx_ack) + 16'(ack_coalesced);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_NAK) +: 16] = 16'(stat_rx_nak);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_CQE) +: 16] = 16'(stat_cqe);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_LOC_PROT_ERR) +: 16] = 16'(stat_loc_prot_err) + 16'(stat_pl_loc_prot_err);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_CQ_OVERRUN) +: 16] = 16'(stat_cq_overrun);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_ACCESS_ERR) +: 16] = 16'(stat_access_err) + 16'(stat_rr_access_err);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_RNR_NAK) +: 16] = 16'(stat_tx_rnr);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RECV_CQE) +: 16] = 16'(stat_recv_cqe);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_RNR_NAK) +: 16] = 16'(stat_rx_rnr);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RETRY) +: 16] = 16'(stat_retry);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_ACK_TIMEOUT) +: 16] = 16'(stat_timeout);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_PAUSE_REQ) +: 16] = 16'(stat_pause_rise);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_PAUSE_STALL) +: 16] = 16'(stat_pause_stall);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_TX_STALE) +: 16] = 16'(req_hdr_valid && req_hdr_ready && req_hdr_dead);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_QKEY_DROP) +: 16] = 16'(stat_qkey_drop);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_UD_NO_WQE) +: 16] = 16'(stat_ud_no_wqe);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_MCAST_DROP) +: 16] = 16'(stat_mcast_drop);
        stat_inc_d[16 * sidx(rnic_pkg::REG_STAT_RX_MCAST_COPY) +: 16] = 16'(stat_mcast_copy);
    end
    always_ff @(posedge clk) stat_inc <= rst ? '0 : stat_inc_d;

    // frames the FIFO drops for a bad flag were already counted by the checker;
    // payload read errors leave garbage on the wire that the peer's ICRC or
    // length checks catch only by chance: a later issue reports them as events
    // (regs range-checks the context index; the window is wider than any record)
    wire unused_ok = ^{stat_good, fifo_bad_frame, fifo_good_frame, fifo_tuser,
                       pay_status_error, ctx_wr_index, ctx_wr_data, rr_status_error,
                       stat_tx_read_resp};

endmodule

`resetall
