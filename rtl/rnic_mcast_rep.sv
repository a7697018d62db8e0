`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Multicast replicator, on the request channel between the receive
 * dispatcher and the UD GRH stage (a header, then its payload when the
 * payload length is not 0). A packet for any QPN but MCAST_QPN passes
 * straight through, header and payload, with no extra cycle.
 *
 * A packet for MCAST_QPN (the dispatcher lets only UD SENDs to a multicast
 * MAC and IP through with it) is looked up in the group table: two ways of
 * 2^MCAST_BUCKET_BITS entries in block RAM, way 0 read at bucket
 * mcast_hash0 of the destination GID and way 1 at mcast_hash1, in parallel
 * (docs/formats.toml, group "mcast"); the firmware places each group in one
 * of its two buckets. Its payload is stored in a block-RAM buffer of one
 * largest frame (BUF_BYTES), and once it is complete the packet is sent on
 * once per attached QP, each copy with its destination QPN replaced, so
 * everything downstream sees ordinary UD packets (Q_Key, receive WQE and
 * GRH area per QP). A packet of no group, or longer than the buffer, is
 * dropped (stat_drop). The member list is read once, when the packet's
 * header arrives: a table write after that (a DETACH) takes effect with the
 * next packet.
 */
module rnic_mcast_rep #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int QPN_WIDTH = 10,
    parameter int BUF_BYTES = 4096
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic                              s_hdr_valid,
    output      logic                              s_hdr_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,
    input  wire logic [DATA_WIDTH-1:0]             s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_tkeep,
    input  wire logic                              s_axis_tvalid,
    output      logic                              s_axis_tready,
    input  wire logic                              s_axis_tlast,

    output      logic                              m_hdr_valid,
    input  wire logic                              m_hdr_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_hdr,
    output      logic [DATA_WIDTH-1:0]             m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_tkeep,
    output      logic                              m_axis_tvalid,
    input  wire logic                              m_axis_tready,
    output      logic                              m_axis_tlast,

    // group table writes (CTX_TABLE_MCG): index = way << MCAST_BUCKET_BITS | bucket
    input  wire logic                              mcg_wr_en,
    input  wire logic [rnic_pkg::MCAST_BUCKET_BITS:0] mcg_wr_index,
    input  wire logic [rnic_pkg::MCG_BITS-1:0]     mcg_wr_data,
    output      logic                              init_done,

    output      logic                              stat_drop,
    output      logic                              stat_copy
);

    localparam int BB = rnic_pkg::MCAST_BUCKET_BITS;
    localparam int NQ = rnic_pkg::MCAST_GROUP_QPS;
    localparam int CW = rnic_pkg::MCG_COUNT_W;
    // an entry as stored: valid, count, MGID, the QPNs cut to the table's width
    localparam int EW = 1 + CW + 128 + NQ * QPN_WIDTH;
    localparam int BEATS = BUF_BYTES / KEEP_WIDTH;
    localparam int BA = $clog2(BEATS);

    // ---------------------------------------------------------------- table
    logic [EW-1:0] wr_entry;
    always_comb begin
        wr_entry = '0;
        wr_entry[0] = mcg_wr_data[rnic_pkg::MCG_VALID_LSB];
        wr_entry[1 +: CW] = mcg_wr_data[rnic_pkg::MCG_COUNT_LSB +: CW];
        wr_entry[1 + CW +: 128] = mcg_wr_data[rnic_pkg::MCG_MGID_LSB +: 128];
        for (int i = 0; i < NQ; i++)
            wr_entry[1 + CW + 128 + QPN_WIDTH * i +: QPN_WIDTH] =
                mcg_wr_data[rnic_pkg::MCG_QPN_LSB + 32 * i +: QPN_WIDTH];
    end

    // the destination GID of the packet: IPv6 as is, IPv4 mapped
    wire         h_ipv6  = s_hdr[rnic_hdr_pkg::HDR_IPV6_LSB];
    wire [127:0] h_ipdst = s_hdr[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W];
    wire [23:0]  h_dqpn  = s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W];
    wire [15:0]  h_plen  = s_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];
    wire [127:0] h_gid   = rnic_hdr_pkg::hdr_ip_gid(h_ipv6, h_ipdst);
    wire         h_mc    = h_dqpn == rnic_pkg::MCAST_QPN[23:0];

    // h ^ h >> BB ^ h >> 2*BB, cut to BB bits (bits 3*BB-1:0 of h; BB <= 5)
    function automatic logic [BB-1:0] fold(input logic [3*BB-1:0] h);
        fold = h[BB-1:0] ^ h[BB +: BB] ^ h[2 * BB +: BB];
    endfunction
    function automatic logic [15:0] rotl16(input logic [15:0] v, input int n);
        rotl16 = (v << n) | (v >> (16 - n));
    endfunction
    logic [15:0] hash0, hash1;
    always_comb begin
        hash0 = '0;
        hash1 = '0;
        for (int i = 0; i < 8; i++) begin
            hash0 = hash0 ^ h_gid[16 * i +: 16];
            hash1 = hash1 ^ (i == 0 ? h_gid[15:0] : rotl16(h_gid[16 * i +: 16], i));
        end
    end

    logic          lk_rd;
    logic [EW-1:0] way_data [2];
    logic [1:0]    way_init;
    for (genvar w = 0; w < 2; w++) begin : g_way
        rnic_ram_1w1r #(.WIDTH(EW), .ADDR_WIDTH(BB)) ram (
            .clk, .rst,
            .wr_en(mcg_wr_en && mcg_wr_index[BB] == 1'(w)), .wr_addr(mcg_wr_index[BB-1:0]), .wr_data(wr_entry),
            .rd_en(lk_rd), .rd_addr(w == 0 ? fold(hash0[3*BB-1:0]) : fold(hash1[3*BB-1:0])), .rd_data(way_data[w]),
            .init_done(way_init[w])
        );
    end
    assign init_done = &way_init;

    // ---------------------------------------------------------------- buffer
    localparam int BW = DATA_WIDTH + KEEP_WIDTH;
    logic          buf_we, buf_re;
    logic [BA-1:0] buf_wa, buf_ra;
    logic [BW-1:0] buf_rd;
    logic          buf_init_done;
    rnic_ram_1w1r #(.WIDTH(BW), .ADDR_WIDTH(BA), .ZERO_UNWRITTEN(0)) buf_ram (
        .clk, .rst,
        .wr_en(buf_we), .wr_addr(buf_wa), .wr_data({s_axis_tkeep, s_axis_tdata}),
        .rd_en(buf_re), .rd_addr(buf_ra), .rd_data(buf_rd),
        .init_done(buf_init_done)
    );
    // (a buffer without the clear: only written beats are read)
    wire unused_ok = buf_init_done ^ (^hash0[15:3*BB]) ^ (^hash1[15:3*BB]);

    // ---------------------------------------------------------------- control
    typedef enum logic [2:0] {
        S_IDLE,     // next header: pass it, or take a multicast one
        S_PASS,     // payload of a passed packet
        S_LOOKUP,   // group table read in flight
        S_SELECT,   // which way holds the group
        S_FILL,     // payload into the buffer
        S_OUT_HDR,  // a copy's header
        S_OUT_PAY   // a copy's payload from the buffer
    } state_t;
    state_t state_reg;

    logic [rnic_hdr_pkg::HDR_BITS-1:0] hdr_reg;
    logic                 has_pay_reg;     // the held packet has payload
    logic [1:0]           hit_reg;         // way 0 / way 1 hold the group
    logic                 found_reg;
    logic [CW-1:0]        count_reg;
    logic [NQ*QPN_WIDTH-1:0] members_reg;
    logic [CW-1:0]        member_reg;      // copy being sent
    logic [BA:0]          wr_ptr_reg;      // beats stored
    logic                 ovf_reg;         // more beats than the buffer holds
    logic [BA:0]          rd_ptr_reg;      // next beat to read
    // two-entry output queue in front of the registered buffer read
    logic [BW-1:0]        q_data_reg [2];
    logic                 q_last_reg [2];
    logic [1:0]           q_cnt_reg;
    logic                 q_head_reg;
    logic                 rd_pend_reg, rd_pend_last_reg;

    wire [127:0] hdr_gid = rnic_hdr_pkg::hdr_ip_gid(hdr_reg[rnic_hdr_pkg::HDR_IPV6_LSB],
                                                    hdr_reg[rnic_hdr_pkg::HDR_IP_DST_LSB +: 128]);
    logic [1:0] match;
    always_comb begin
        for (int w = 0; w < 2; w++)
            match[w] = way_data[w][0] && way_data[w][1 +: CW] != '0 && way_data[w][1 + CW +: 128] == hdr_gid;
    end

    wire [CW-1:0] sel_count = hit_reg[0] ? way_data[0][1 +: CW] : way_data[1][1 +: CW];
    wire in_beat = s_axis_tvalid && s_axis_tready;
    wire q_pop = state_reg == S_OUT_PAY && m_axis_tvalid && m_axis_tready;
    wire last_member = 32'(member_reg) + 1 >= 32'(count_reg);
    // issue a read while the queue has room for it when it lands
    assign buf_re = state_reg == S_OUT_PAY && rd_ptr_reg < wr_ptr_reg
                    && 3'(q_cnt_reg) + 3'(rd_pend_reg) - 3'(q_pop) < 3'd2;
    assign buf_ra = rd_ptr_reg[BA-1:0];
    assign buf_we = state_reg == S_FILL && in_beat && wr_ptr_reg < (BA+1)'(BEATS);
    assign buf_wa = wr_ptr_reg[BA-1:0];
    assign lk_rd = state_reg == S_IDLE && s_hdr_valid && h_mc;

    always_comb begin
        s_hdr_ready = 1'b0;
        m_hdr_valid = 1'b0;
        m_hdr = s_hdr;
        if (state_reg == S_IDLE) begin
            m_hdr_valid = s_hdr_valid && !h_mc;
            s_hdr_ready = h_mc || m_hdr_ready;
        end else if (state_reg == S_OUT_HDR) begin
            m_hdr_valid = 1'b1;
            m_hdr = hdr_reg;
            m_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: 24] = 24'(members_reg[QPN_WIDTH * member_reg +: QPN_WIDTH]);
        end
        s_axis_tready = state_reg == S_FILL || (state_reg == S_PASS && m_axis_tready);
        if (state_reg == S_PASS) begin
            m_axis_tdata = s_axis_tdata;
            m_axis_tkeep = s_axis_tkeep;
            m_axis_tlast = s_axis_tlast;
            m_axis_tvalid = s_axis_tvalid;
        end else begin
            {m_axis_tkeep, m_axis_tdata} = q_data_reg[q_head_reg];
            m_axis_tlast = q_last_reg[q_head_reg];
            m_axis_tvalid = state_reg == S_OUT_PAY && q_cnt_reg != 2'd0;
        end
    end

    always_ff @(posedge clk) begin
        stat_drop <= 1'b0;
        stat_copy <= 1'b0;
        // the queue: the read issued last cycle lands at its tail
        if (rd_pend_reg) begin
            // the free slot: the head when the queue is empty (or full with
            // its head leaving now), the other one when it holds one entry
            q_data_reg[q_head_reg ^ (q_cnt_reg == 2'd1)] <= buf_rd;
            q_last_reg[q_head_reg ^ (q_cnt_reg == 2'd1)] <= rd_pend_last_reg;
        end
        if (q_pop) q_head_reg <= !q_head_reg;
        q_cnt_reg <= q_cnt_reg + 2'(rd_pend_reg) - 2'(q_pop);
        rd_pend_reg <= buf_re;
        rd_pend_last_reg <= rd_ptr_reg + 1'b1 == wr_ptr_reg;
        if (buf_re) rd_ptr_reg <= rd_ptr_reg + 1'b1;

        case (state_reg)
            S_IDLE: begin
                if (s_hdr_valid && s_hdr_ready) begin
                    hdr_reg <= s_hdr;
                    has_pay_reg <= h_plen != 16'd0;
                    if (h_mc) state_reg <= S_LOOKUP;
                    else if (h_plen != 16'd0) state_reg <= S_PASS;
                end
            end
            S_PASS: if (in_beat && s_axis_tlast) state_reg <= S_IDLE;
            S_LOOKUP: begin
                hit_reg <= match;
                state_reg <= S_SELECT;
            end
            S_SELECT: begin
                found_reg <= hit_reg != 2'd0;
                // (a count above MCAST_GROUP_QPS, which no firmware writes, reads as the most)
                count_reg <= sel_count > CW'(NQ) ? CW'(NQ) : sel_count;
                members_reg <= hit_reg[0] ? way_data[0][1 + CW + 128 +: NQ * QPN_WIDTH]
                                          : way_data[1][1 + CW + 128 +: NQ * QPN_WIDTH];
                member_reg <= '0;
                wr_ptr_reg <= '0;
                ovf_reg <= 1'b0;
                state_reg <= has_pay_reg ? S_FILL : S_OUT_HDR;
                if (!has_pay_reg && hit_reg == 2'd0) begin
                    stat_drop <= 1'b1;
                    state_reg <= S_IDLE;
                end
            end
            S_FILL: begin
                if (in_beat) begin
                    if (buf_we) wr_ptr_reg <= wr_ptr_reg + 1'b1;
                    else ovf_reg <= 1'b1;
                    if (s_axis_tlast) begin
                        if (!found_reg || ovf_reg || !buf_we) begin
                            stat_drop <= 1'b1;
                            state_reg <= S_IDLE;
                        end else begin
                            state_reg <= S_OUT_HDR;
                        end
                    end
                end
            end
            S_OUT_HDR: begin
                if (m_hdr_ready) begin
                    stat_copy <= 1'b1;
                    rd_ptr_reg <= '0;
                    if (has_pay_reg) state_reg <= S_OUT_PAY;
                    else if (last_member) state_reg <= S_IDLE;
                    else member_reg <= member_reg + 1'b1;
                end
            end
            S_OUT_PAY: begin
                if (q_pop && m_axis_tlast) begin
                    if (last_member) state_reg <= S_IDLE;
                    else begin
                        member_reg <= member_reg + 1'b1;
                        state_reg <= S_OUT_HDR;
                    end
                end
            end
            default: state_reg <= S_IDLE;
        endcase
        if (rst) begin
            state_reg <= S_IDLE;
            q_cnt_reg <= '0;
            q_head_reg <= 1'b0;
            rd_pend_reg <= 1'b0;
            rd_ptr_reg <= '0;
            stat_drop <= 1'b0;
            stat_copy <= 1'b0;
        end
    end

endmodule

`resetall
