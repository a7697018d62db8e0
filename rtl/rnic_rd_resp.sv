`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Read-response generator (responder side of RDMA READ).
 *
 * The responder accepts a READ request (PSN, rkey, bounds and REMOTE_READ
 * checked) and, once every earlier request of every QP has been written to
 * host memory and acknowledged, queues a job here: a header template
 * (addresses, destination QP, AETH with the MSN), the first PSN, the
 * virtual address, rkey, PD and length. Jobs are served in order. Each is
 * cut into path-MTU packets: READ RESPONSE FIRST / MIDDLE / LAST, or ONLY
 * for a single packet, with the AETH on FIRST, LAST and ONLY (IBTA 9.4.3).
 * Every packet's range is checked and translated against the MPT again just
 * before its payload is read, so a region deregistered while a READ (or a
 * late duplicate of one) waits here is never read: the rest of that job is
 * dropped and counted as an access error, and the requester's retry gets
 * the remote access error NAK. The payload engine reads each packet's bytes
 * from host memory as the packet goes out. A duplicate READ is queued again
 * and re-executed from host memory (IBTA 9.9.2.4.2): nothing is kept on the
 * card. A job whose QP has moved on to a newer read generation (the
 * requester asked again from an earlier PSN, or the QP was reset) is
 * dropped at its next packet boundary, and every job of a QP that is reset,
 * ACKs and NAKs included, is marked dead: a QP in RESET sends nothing
 * (IBTA 10.3.1).
 *
 * Responses of one QP leave in PSN order: while a QP has jobs here, the
 * responder queues that QP's ACKs and NAKs here too (raw jobs: the header
 * goes out as it is), behind its READ responses, and any ACK or NAK that
 * meets its direct path to the builder full, so that it never waits for
 * the transmit path itself; `pend_rd` tells it which
 * QPs have jobs or headers here, and `pend_at` whether an ATOMIC's QP has
 * a READ here whose bytes may share the ATOMIC's 64-byte line, in a job or
 * a payload read still unanswered: one through another MPT entry (its
 * addresses are in another region's MTT space, which may map the same
 * pages), or through the same one and over that line. An ATOMIC waits
 * for its own QP's READs of that memory only, and until their bytes have
 * been read from host memory: a header leaves for the builder before its
 * payload arrives, and an ATOMIC that wrote in between would change what
 * an earlier READ returns; a READ of other memory cannot tell, and its
 * responses may wait for a paused link.
 *
 * ACKs behind READ responses are coalesced: a plain ACK (s_job_plain: no
 * NAK, no ATOMIC ACKNOWLEDGE) takes no slot when its QP's newest job here
 * (not the head, whose end may be under way) is a plain ACK, whose PSN and
 * MSN it replaces, or a READ, which then sends it with its PSN and MSN
 * after its last response (or where the READ stops; not if its QP is
 * reset). An ACK acknowledges everything before it, and nothing of the QP
 * lies in between. So while a paused link holds the READ responses, a
 * QP's ACKs need no slots of their own, and the responder, which queues
 * them here, is held only by the READs and ATOMICs, which
 * max_dest_rd_atomic bounds.
 *
 * Headers wait in a queue of 2^HDRQ_LOG2 for the packet builder, and each
 * packet's payload is asked for as soon as its header is queued: the
 * payload engine (whose buffer bounds what is asked for) reads the next
 * packets while the builder still sends earlier ones, so host-memory
 * latency is not paid once per packet.
 */
module rnic_rd_resp #(
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int JOBS_LOG2 = 5,
    parameter int HDRQ_LOG2 = 4,
    // payload reads asked for and not yet answered, tracked per QP
    parameter int PAYQ_LOG2 = 4
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic                              s_job_valid,
    output      logic                              s_job_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_job_hdr,   // PSN field: first PSN
    input  wire logic [63:0]                       s_job_va,
    input  wire logic [31:0]                       s_job_rkey,
    input  wire logic [15:0]                       s_job_pd,
    input  wire logic [31:0]                       s_job_len,
    input  wire logic [2:0]                        s_job_pmtu,  // IB_MTU_* code, 256..4096
    // the job's QP, s_job_qpn_sel ? s_job_qpn_b : s_job_qpn_a: two registers
    // and a select, so the coalescing search compares both and selects
    // after its OR (the select in front of 32 compares would be a level
    // more on a path at the budget)
    input  wire logic [QPN_WIDTH-1:0]              s_job_qpn_a,
    input  wire logic [QPN_WIDTH-1:0]              s_job_qpn_b,
    input  wire logic                              s_job_qpn_sel,
    input  wire logic [3:0]                        s_job_gen,
    input  wire logic                              s_job_raw,   // an ACK/NAK header (no payload), sent as is
    input  wire logic                              s_job_plain, // ... a plain ACK, which a later one may replace;
                                                                // offered with s_job_qpn as it was the cycle before,
                                                                // and from flops: s_job_ready depends on it
    // the 64-byte lines of a READ's bytes, bits 39:6 of the bus address
    // as the responder translated it: first, last (bit 34: wrapped past
    // 2^40), none (zero length)
    input  wire logic [33:0]                       s_job_span_first,
    input  wire logic [34:0]                       s_job_span_last,
    input  wire logic                              s_job_span_nz,

    // jobs queued or in progress for a QP
    input  wire logic                              qp_reset_valid,
    input  wire logic [QPN_WIDTH-1:0]              qp_reset_qpn,
    // the QP asked about, pend_rd_sel ? pend_rd_qpn_b : pend_rd_qpn_a (as
    // s_job_qpn: both compared, the answer selected)
    input  wire logic [QPN_WIDTH-1:0]              pend_rd_qpn_a,
    input  wire logic [QPN_WIDTH-1:0]              pend_rd_qpn_b,
    input  wire logic                              pend_rd_sel,
    output      logic                              pend_rd_val,
    input  wire logic [QPN_WIDTH-1:0]              pend_at_qpn,
    input  wire logic [33:0]                       pend_at_line,   // the line of the ATOMIC's 8 bytes
    input  wire logic [MR_INDEX_WIDTH-1:0]         pend_at_mr,     // and the MPT entry of its rkey
    output      logic                              pend_at_val,

    output      logic [QPN_WIDTH-1:0]              rgen_rd_qpn,
    input  wire logic [3:0]                        rgen_rd_val,

    // READ jobs (not raw) of a QP and generation queued or in progress,
    // counted for the QP and generation given the cycle before (a reset of
    // that QP in that cycle moves it on to the next generation); the QP
    // must not change between the two cycles
    input  wire logic [QPN_WIDTH-1:0]              cnt_rd_qpn,
    input  wire logic [3:0]                        cnt_rd_gen,
    output      logic [7:0]                        cnt_rd_val,

    output      logic                              mpt_rd_en,
    output      logic [MR_INDEX_WIDTH-1:0]         mpt_rd_addr,
    input  wire logic [rnic_pkg::MPT_BITS-1:0]     mpt_rd_data,

    output      logic                              m_hdr_valid,
    input  wire logic                              m_hdr_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_hdr,
    output      logic                              m_hdr_pay,   // the response carries payload (length not 0)

    output      logic [63:0]                       m_axis_pay_desc_addr,
    output      logic [31:0]                       m_axis_pay_desc_len,
    output      logic                              m_axis_pay_desc_last,
    output      logic                              m_axis_pay_desc_valid,
    input  wire logic                              m_axis_pay_desc_ready,
    // one per payload descriptor, in order, once its bytes have been read
    input  wire logic                              s_pay_status_valid,

    output      logic                              stat_tx_read_resp,
    output      logic                              stat_access_err
);

    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int JOBS = 2 ** JOBS_LOG2;

    wire [QPN_WIDTH-1:0] s_job_qpn = s_job_qpn_sel ? s_job_qpn_b : s_job_qpn_a;

    // the jobs' templates as the bits an ACK can set, the queued packet
    // headers as those of a READ response (rnic_hdr_pkg's masks)
    localparam logic [HB-1:0] JOB_MASK = rnic_hdr_pkg::HDR_MASK_ACK;
    localparam int JOB_W = rnic_hdr_pkg::hdr_mask_bits(JOB_MASK);
    localparam logic [HB-1:0] HQ_MASK = rnic_hdr_pkg::HDR_MASK_READ_RESP;
    localparam int HQ_W = rnic_hdr_pkg::hdr_mask_bits(HQ_MASK);
    logic [JOB_W-1:0]   job_hdr_mem [JOBS];
    logic [JOB_W-1:0]   s_job_hdr_packed;
    rnic_hdr_pack #(.MASK(JOB_MASK), .W(JOB_W)) s_job_hdr_pack_inst (
        .hdr(s_job_hdr), .packed_hdr(s_job_hdr_packed)
    );
    logic [63:0]        job_va_mem [JOBS];
    logic [31:0]        job_rkey_mem [JOBS];
    logic [15:0]        job_pd_mem [JOBS];
    logic [31:0]        job_len_mem [JOBS];
    logic [2:0]         job_pmtu_mem [JOBS];
    logic [QPN_WIDTH-1:0] job_qpn_mem [JOBS];
    logic [3:0]         job_gen_mem [JOBS];
    logic               job_raw_mem [JOBS];
    logic               job_dead_mem [JOBS]; // its QP was reset after it was queued
    // a raw job's PSN and MSN, which a later plain ACK of its QP may replace
    logic [23:0]        job_apsn_reg [JOBS];
    logic [23:0]        job_amsn_reg [JOBS];
    logic [JOBS-1:0]    job_plain_reg;  // a plain ACK
    logic [JOBS-1:0]    job_tack_reg;   // a READ with a plain ACK to send after it (job_apsn/amsn)
    logic [JOBS-1:0]    job_last_reg;   // the newest job of its QP
    logic [MR_INDEX_WIDTH-1:0] job_smr_mem [JOBS];   // the MPT entry of its rkey
    // the span's lines modulo 2^SPAN_K and whether it wraps there (see span_has)
    localparam int SPAN_K = 16;
    logic [SPAN_K-1:0]  job_sfirst_mem [JOBS];
    logic [SPAN_K-1:0]  job_slast_mem [JOBS];
    logic               job_swrap_mem [JOBS];
    logic               job_snz_mem [JOBS];
    logic [JOBS_LOG2:0] wr_reg, rd_reg;
    logic [JOBS-1:0]    job_vld_reg;   // entry i lies in [rd, wr): kept with them

    wire empty = wr_reg == rd_reg;
    // full (JOBS queued) and almost_full (JOBS - 1) are registers, kept with
    // the pointers (below): s_job_ready is one LUT from flops. The pointer
    // compare in its place was 4 levels in front of the responder's action
    // queue, 9 levels at 512 bits.
    logic full, almost_full;
    logic job_pop;   // the head job leaves the queue (rd_reg advances)
    // a plain ACK that is coalesced takes no slot (see coal_fire)
    logic coal_reg;
    assign s_job_ready = !full || (s_job_plain && coal_reg);
    wire   coal_fire = s_job_valid && s_job_plain && coal_reg;
    wire   job_push = s_job_valid && s_job_ready && !coal_fire;

    // headers for the builder, with the QP they belong to
    localparam int HDRQ = 2 ** HDRQ_LOG2;
    logic [HQ_W-1:0]      hq_hdr_mem [HDRQ];
    logic [QPN_WIDTH-1:0] hq_qpn_mem [HDRQ];
    logic                 hq_pay_mem [HDRQ];   // the header's length is not 0
    logic [HDRQ_LOG2:0]   hq_wr_reg, hq_rd_reg;
    logic [HDRQ-1:0]      hq_vld_reg;   // entry i lies in [hq_rd, hq_wr): kept with them
    // (an entry popped is cleared a cycle later, from registers: the
    // transmit arbiter's grant, behind which the pop comes, and the valid
    // bits' write decode after it were 9 levels at 512 bits. For that cycle
    // the QP's search below may say pending when nothing is: never too
    // low, which is what the responder needs; a push to the entry wins.)
    logic                 hq_pop_q;
    logic [HDRQ_LOG2-1:0] hq_pop_idx_q;
    // (the entry after the head, which the pop's next valid reads, is then
    // never the one popped a cycle before)
    initial if (HDRQ_LOG2 < 2) $error("rnic_rd_resp: HDRQ_LOG2 must be 2 or more (%m)");
    wire hq_empty = hq_wr_reg == hq_rd_reg;
    wire hq_full = hq_wr_reg[HDRQ_LOG2] != hq_rd_reg[HDRQ_LOG2]
                   && hq_wr_reg[HDRQ_LOG2-1:0] == hq_rd_reg[HDRQ_LOG2-1:0];
    // m_hdr_valid is a flip-flop (the transmit arbiter's grant, and the
    // 1009-bit header registers behind it, start from it instead of the
    // pointers' compare), prepared for both outcomes of the pop: after it,
    // the entry behind the head or this cycle's push
    logic hq_nonempty_reg;
    assign m_hdr_valid = hq_nonempty_reg;
    wire [HDRQ_LOG2-1:0] hq_second = hq_rd_reg[HDRQ_LOG2-1:0] + 1'b1;
    rnic_hdr_unpack #(.MASK(HQ_MASK), .W(HQ_W)) m_hdr_unpack_inst (
        .packed_hdr(hq_hdr_mem[hq_rd_reg[HDRQ_LOG2-1:0]]), .hdr(m_hdr)
    );
    assign m_hdr_pay = hq_pay_mem[hq_rd_reg[HDRQ_LOG2-1:0]];

    // Whether a QP has a header still queued or a job queued or in progress
    // (not one of a QP reset since), asked for two QPs at once: pend_rd for
    // the responder's head action (its ACK goes behind the QP's READ
    // responses), pend_at for an ATOMIC (it waits for its QP's READs of
    // its line). Queue membership comes from valid bits kept with the
    // pointers (not a subtract and compare per entry), and the hits are
    // OR-reduced.
    logic [HDRQ-1:0] hq_hit_qp_a, hq_hit_qp_b;
    logic [JOBS-1:0] job_hit_qp_a, job_hit_qp_b, job_hit_at;
    logic [JOBS-1:0] job_ovl_reg;     // entry i's READ shares the ATOMIC's line
    logic [JOBS-1:0] job_fresh_reg;   // entry i was queued last cycle (job_ovl_reg not yet its own)
    always_comb begin
        for (int i = 0; i < HDRQ; i++) begin
            hq_hit_qp_a[i] = hq_vld_reg[i] && hq_qpn_mem[i] == pend_rd_qpn_a;
            hq_hit_qp_b[i] = hq_vld_reg[i] && hq_qpn_mem[i] == pend_rd_qpn_b;
        end
        for (int i = 0; i < JOBS; i++) begin
            job_hit_qp_a[i] = job_vld_reg[i] && !job_dead_mem[i] && job_qpn_mem[i] == pend_rd_qpn_a;
            job_hit_qp_b[i] = job_vld_reg[i] && !job_dead_mem[i] && job_qpn_mem[i] == pend_rd_qpn_b;
            job_hit_at[i] = job_vld_reg[i] && !job_dead_mem[i] && !job_raw_mem[i] && job_qpn_mem[i] == pend_at_qpn
                            && (job_ovl_reg[i] || job_fresh_reg[i]);
        end
    end
    assign pend_rd_val = pend_rd_sel ? |{job_hit_qp_b, hq_hit_qp_b} : |{job_hit_qp_a, hq_hit_qp_a};

    // Coalescing. A plain ACK is offered with the QP it had the cycle
    // before (the responder offers an ACK from the second cycle its action
    // is at the head of its queue): so the entry it goes into (the QP's
    // newest job, a plain ACK or a READ) is found a cycle ahead, from the
    // entries of the QP offered then, and registered. Neither the head nor
    // the entry behind it (the head one pop later: pops are two cycles
    // apart or more) is taken, as the head's end may be under way, and nothing may
    // have been queued in between (a job of the QP queued then is newer);
    // a reset of the QP then kills the entry (its ACK would have died too).
    // The target stays queued and not the head until the write lands.
    logic [JOBS-1:0] coal_tgt_reg;
    logic [JOBS-1:0] head_near;   // the head and the entry behind it
    always_comb begin
        head_near = '0;
        head_near[rd_reg[JOBS_LOG2-1:0]] = 1'b1;
        head_near[JOBS_LOG2'(rd_reg[JOBS_LOG2-1:0] + 1'b1)] = 1'b1;
    end
    logic [JOBS-1:0] job_in_qp_a, job_in_qp_b;   // the queued entries of the QP offered (either register)
    always_comb
        for (int i = 0; i < JOBS; i++) begin
            job_in_qp_a[i] = job_vld_reg[i] && !job_dead_mem[i] && job_qpn_mem[i] == s_job_qpn_a;
            job_in_qp_b[i] = job_vld_reg[i] && !job_dead_mem[i] && job_qpn_mem[i] == s_job_qpn_b;
        end
    logic [JOBS-1:0] job_raw_vec;
    always_comb for (int i = 0; i < JOBS; i++) job_raw_vec[i] = job_raw_mem[i];
    wire [JOBS-1:0] job_in_qp = s_job_qpn_sel ? job_in_qp_b : job_in_qp_a;
    wire [JOBS-1:0] coal_ok = job_last_reg & (job_plain_reg | ~job_raw_vec) & ~head_near;
    wire [JOBS-1:0] coal_tgt_a = job_in_qp_a & coal_ok, coal_tgt_b = job_in_qp_b & coal_ok;
    wire [JOBS-1:0] coal_tgt = s_job_qpn_sel ? coal_tgt_b : coal_tgt_a;
    wire coal_any = s_job_qpn_sel ? |coal_tgt_b : |coal_tgt_a;
    wire reset_job_qp = qp_reset_valid && (s_job_qpn_sel ? qp_reset_qpn == s_job_qpn_b : qp_reset_qpn == s_job_qpn_a);
    always_ff @(posedge clk) begin
        coal_tgt_reg <= coal_tgt;
        coal_reg <= coal_any && !(s_job_valid && s_job_ready) && !reset_job_qp;
        if (rst) coal_reg <= 1'b0;
    end

    // Whether a span [first, last] of 64-byte lines in the low 40 bits of
    // the bus address holds the line of the ATOMIC's 8 bytes (8-aligned, so
    // in one line). The lines are compared modulo 2^SPAN_K (4 MiB): a
    // queued span is its first and last line's low bits and whether it
    // wraps there (crosses a multiple of 2^SPAN_K lines, or 2^40 bytes:
    // then it is [first, 2^SPAN_K) and [0, last]); a READ of 2 MiB or more
    // (which may cover 2^SPAN_K lines) is queued as every line. Aliasing
    // only ever adds a hit (a wait), never loses one (asserted), and two
    // 16-bit compares per entry are half the logic of two 34-bit ones.
    // A READ through another MPT entry may read the same pages (another
    // region over them, a window): it holds the ATOMIC whatever its span.
    wire span_big = s_job_len[31:SPAN_K+5] != '0;
    wire span_cross = s_job_span_last[34:SPAN_K] != {1'b0, s_job_span_first[33:SPAN_K]};
    function automatic logic span_has(input logic [MR_INDEX_WIDTH-1:0] mr, input logic [SPAN_K-1:0] first,
                                      input logic [SPAN_K-1:0] last, input logic wrap, input logic nz);
        logic ge, le;
        ge = pend_at_line[SPAN_K-1:0] >= first;
        le = pend_at_line[SPAN_K-1:0] <= last;
        span_has = nz && (mr != pend_at_mr || (wrap ? (ge || le) : (ge && le)));
    endfunction
    // The compares are registered (the ATOMIC's address holds from the
    // responder's S_EXEC on; it asks from the second cycle of S_ATWAIT), and
    // an entry written since counts as a hit until its own compare is in.
    always_ff @(posedge clk)
        for (int i = 0; i < JOBS; i++)
            job_ovl_reg[i] <= span_has(job_smr_mem[i], job_sfirst_mem[i], job_slast_mem[i], job_swrap_mem[i],
                                       job_snz_mem[i]);

    // QPs of the payload reads asked for and not yet answered (the read
    // engine answers in order); a read is asked for only when there is room
    localparam int PAYQ = 2 ** PAYQ_LOG2;
    logic [QPN_WIDTH-1:0] pq_qpn_mem [PAYQ];
    // the span of the READ it belongs to (its job's: the packet's own
    // bytes lie in it), for the ATOMICs
    logic [MR_INDEX_WIDTH-1:0] pq_smr_mem [PAYQ];
    logic [SPAN_K-1:0]    pq_sfirst_mem [PAYQ];
    logic [SPAN_K-1:0]    pq_slast_mem [PAYQ];
    logic                 pq_swrap_mem [PAYQ];
    logic                 pq_snz_mem [PAYQ];
    logic [PAYQ-1:0]      pq_ovl_reg;
    logic [PAYQ_LOG2:0]   pq_wr_reg, pq_rd_reg;
    logic [PAYQ-1:0]      pq_vld_reg;   // entry i lies in [pq_rd, pq_wr)
    wire pq_full = pq_wr_reg[PAYQ_LOG2] != pq_rd_reg[PAYQ_LOG2]
                   && pq_wr_reg[PAYQ_LOG2-1:0] == pq_rd_reg[PAYQ_LOG2-1:0];
    logic [PAYQ-1:0] pq_hit_at;
    always_comb
        for (int i = 0; i < PAYQ; i++)
            pq_hit_at[i] = pq_vld_reg[i] && pq_qpn_mem[i] == pend_at_qpn && pq_ovl_reg[i];
    // A READ's bytes are in its job until its last payload read is asked
    // for (the job leaves in the S_NEXT after it), then in that read's
    // entry until it is answered: no header whose bytes are not yet read
    // is outside both, so the header queue is not searched.
    assign pend_at_val = |{job_hit_at, pq_hit_at};

    wire [JOBS_LOG2-1:0] head = rd_reg[JOBS_LOG2-1:0];

    // The MPT entry of the job's rkey is read in S_IDLE (the first packet)
    // or S_NEXT (the next one), checked in S_CHK and S_CHK2 (the two stages
    // of rnic_mr_check_pipe) and its verdict taken in S_HDR.
    typedef enum logic [2:0] {
        S_IDLE,  // wait for a job; read the MPT entry of its rkey
        S_CHK,   // check and translate this packet's range: stage 1
        S_CHK2,  // stage 2
        S_HDR,   // drop the job if the check failed, else hand this packet's header to the builder
        S_PAY,   // ask for its payload
        S_NEXT,  // advance; read the MPT entry again for the next packet
        S_TACK   // the READ is over: hand the ACK coalesced into it to the builder
    } state_t;
    state_t state_reg;

    // Each packet's numbers are registers, set when the job starts (S_IDLE)
    // and advanced in S_NEXT, so no subtract, compare or 64-bit add of the
    // offset lies in front of the key check or the header. A path MTU is
    // 2^k bytes (k = 8..12): every packet but the last is one MTU, so the
    // bytes left are q_reg * 2^k + low_reg (low_reg = len mod 2^k) and
    // only q_reg moves.
    logic [23:0] psn_reg;
    logic [63:0] va_reg;      // this packet's virtual address: va + offset
    logic [23:0] q_reg;       // (len - offset) >> k
    logic [11:0] low_reg;     // len mod 2^k
    logic [12:0] mtu_reg;     // 2^k
    logic [11:0] lowmask_reg; // 2^k - 1
    logic [12:0] seg_reg;     // this packet's payload bytes
    logic        seg_nz_reg;  // ... not zero
    logic        first_reg, last_reg;

    // bit i: the AND of x[i-1:0] (1 for bit 0), in log2 steps rather than a
    // carry chain: what an increment flips
    function automatic logic [63:0] pre_and(input logic [63:0] x);
        logic [63:0] p;
        p = x;
        for (int d = 1; d < 64; d = d * 2) p = p & ((p << d) | ((64'd1 << d) - 64'd1));
        pre_and = {p[62:0], 1'b1};
    endfunction

    wire [HB-1:0] tmpl;
    rnic_hdr_unpack #(.MASK(JOB_MASK), .W(JOB_W)) tmpl_unpack_inst (
        .packed_hdr(job_hdr_mem[head]), .hdr(tmpl)
    );
    wire [31:0]   len = job_len_mem[head];
    wire [2:0]    pmtu = (job_pmtu_mem[head] < 3'(rnic_pkg::IB_MTU_256)) ? 3'(rnic_pkg::IB_MTU_256) :
                         (job_pmtu_mem[head] > 3'(rnic_pkg::IB_MTU_4096)) ? 3'(rnic_pkg::IB_MTU_4096)
                                                                          : job_pmtu_mem[head];
    // the first packet's numbers, from the job at the head
    logic [23:0] q0;
    logic [11:0] lowmask0;
    logic [12:0] mtu0;
    always_comb begin
        case (pmtu)
            3'(rnic_pkg::IB_MTU_256):  begin q0 = 24'(len >> 8);  lowmask0 = 12'h0ff; mtu0 = 13'h0100; end
            3'(rnic_pkg::IB_MTU_512):  begin q0 = 24'(len >> 9);  lowmask0 = 12'h1ff; mtu0 = 13'h0200; end
            3'(rnic_pkg::IB_MTU_1024): begin q0 = 24'(len >> 10); lowmask0 = 12'h3ff; mtu0 = 13'h0400; end
            3'(rnic_pkg::IB_MTU_2048): begin q0 = 24'(len >> 11); lowmask0 = 12'h7ff; mtu0 = 13'h0800; end
            default:                   begin q0 = 24'(len >> 12); lowmask0 = 12'hfff; mtu0 = 13'h1000; end
        endcase
    end
    wire [11:0] low0 = len[11:0] & lowmask0;
    // The next packet's va, q and PSN, registered every cycle from the
    // current ones: those change only in S_IDLE and S_NEXT, and S_NEXT
    // comes three cycles or more after either (S_CHK, S_CHK2, S_HDR), so
    // no add is in front of the state's update.
    logic [63:0] va_nx_reg;   // va_reg + 2^k
    logic [23:0] q_nx_reg;    // q_reg - 1
    logic [23:0] psn_nx_reg;  // psn_reg + 1
    always_ff @(posedge clk) begin
        va_nx_reg <= va_reg ^ (pre_and(va_reg | {52'h0, lowmask_reg}) & ~{52'h0, lowmask_reg});
        q_nx_reg <= q_reg ^ 24'(pre_and({40'h0, ~q_reg}));
        psn_nx_reg <= psn_reg + 24'd1;
    end
    // The head job's generation and dead flag, registered: the head moves
    // only into S_IDLE, which looks at neither, and the dead flag is
    // registered with a reset's write of that cycle, as the entry takes it.
    logic [3:0] head_gen_reg;
    logic       head_dead_reg;
    always_ff @(posedge clk) begin
        head_gen_reg <= job_gen_mem[head];
        head_dead_reg <= job_dead_mem[head] || (qp_reset_valid && job_qpn_mem[head] == qp_reset_qpn);
    end

    logic [7:0] opcode;
    always_comb begin
        if (first_reg && last_reg) opcode = rnic_pkg::OP_RDMA_READ_RESPONSE_ONLY[7:0];
        else if (first_reg) opcode = rnic_pkg::OP_RDMA_READ_RESPONSE_FIRST[7:0];
        else if (last_reg) opcode = rnic_pkg::OP_RDMA_READ_RESPONSE_LAST[7:0];
        else opcode = rnic_pkg::OP_RDMA_READ_RESPONSE_MIDDLE[7:0];
    end

    // the head's raw PSN and MSN, registered (the head moves only into
    // S_IDLE, a raw job's header is made in S_HDR after it, and no ACK is
    // coalesced into the head)
    logic [23:0] head_apsn_reg, head_amsn_reg;
    logic        head_tack_reg;
    always_ff @(posedge clk) begin
        head_apsn_reg <= job_apsn_reg[head];
        head_amsn_reg <= job_amsn_reg[head];
        head_tack_reg <= job_tack_reg[head];
    end

    logic [HB-1:0] hdr;
    always_comb begin
        hdr = tmpl;
        // an ACK: a raw job's, or the one after a READ (its template is the
        // READ's ACK header, which the responder made)
        if (raw || state_reg == S_TACK) begin
        hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = head_apsn_reg;
        hdr[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W] = head_amsn_reg;
        hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = '0;
        end else begin
        hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] = opcode;
        hdr[rnic_hdr_pkg::HDR_BTH_SE_LSB] = 1'b0;
        hdr[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W] = 2'(3'd4 - 3'(seg_reg[1:0]));
        hdr[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB] = 1'b0;
        hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = psn_reg;
        hdr[rnic_hdr_pkg::HDR_HAS_RETH_LSB] = 1'b0;
        hdr[rnic_hdr_pkg::HDR_HAS_AETH_LSB] = first_reg || last_reg;
        hdr[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB] = 1'b0;
        hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = 16'(seg_reg);
        end
    end
    logic [HQ_W-1:0] hdr_packed;
    rnic_hdr_pack #(.MASK(HQ_MASK), .W(HQ_W)) hdr_pack_inst (.hdr(hdr), .packed_hdr(hdr_packed));

    assign rgen_rd_qpn = job_qpn_mem[head];
    wire raw = job_raw_mem[head];
    // The generation compare is registered: a READ packet's S_HDR always
    // follows S_CHK2, where the head and its QP's generation read are
    // current (the read's forward mux and the compare ran into the header
    // queue's write enables). A generation moved on in S_HDR's own cycle or
    // the one before is seen at the next packet: one more packet of the old
    // round, as if the new request had come two cycles later. A QP reset
    // is head_dead_reg's.
    logic gen_stale_reg;
    always_ff @(posedge clk) gen_stale_reg <= rgen_rd_val != head_gen_reg;
    wire stale = head_dead_reg || (!raw && gen_stale_reg);   // used in S_HDR only
    wire [31:0] rkey = job_rkey_mem[head];
    // read in S_IDLE whether or not a job waits (the read has no effect)
    assign mpt_rd_en = state_reg == S_IDLE || state_reg == S_NEXT;
    assign mpt_rd_addr = rkey[rnic_pkg::MKEY_TAG_BITS +: MR_INDEX_WIDTH];
    logic        mr_ok;
    logic [63:0] mr_pa;   // held from S_HDR on: the pipe advances only in S_CHK, S_CHK2
    logic        mr_ok_next_unused;
    rnic_mr_check_pipe rkey_check_inst (
        .clk, .en(state_reg == S_CHK || state_reg == S_CHK2),
        .mpt(mpt_rd_data), .key(rkey), .va(va_reg), .len(32'(seg_reg)),
        .pd(job_pd_mem[head]), .need_access(rnic_pkg::ACCESS_REMOTE_READ[7:0]),
        .remote(1'b1), .qpn(24'(job_qpn_mem[head])), .ok(mr_ok), .pa(mr_pa),
        .ok_next(mr_ok_next_unused)
    );
    // a READ packet that fails its check (a zero-length one has no range)
    wire chk_bad = !raw && !mr_ok && seg_nz_reg;
    // this packet's header enters the queue
    wire hq_push = ((state_reg == S_HDR && !chk_bad && !stale) || (state_reg == S_TACK && !head_dead_reg)) && !hq_full;
    // the head job leaves the queue: at its end (S_HDR's failed check or
    // stale job, a raw job's header, S_NEXT's last packet) unless a plain
    // ACK waits behind it (S_TACK), or when S_TACK has sent that ACK
    always_comb begin
        case (state_reg)
            S_HDR:   job_pop = (chk_bad || stale) ? !head_tack_reg : raw && hq_push;
            S_NEXT:  job_pop = last_reg && !head_tack_reg;
            S_TACK:  job_pop = hq_push || head_dead_reg;
            default: job_pop = 1'b0;
        endcase
    end
    wire [JOBS_LOG2:0] job_cnt = wr_reg - rd_reg;
    // the job is over here: the ACK after it next, if it has one
    state_t job_end_state;
    always_comb
        if (head_tack_reg) job_end_state = S_TACK;
        else job_end_state = S_IDLE;

    assign m_axis_pay_desc_addr = mr_pa;
    assign m_axis_pay_desc_len = 32'(seg_reg);
    assign m_axis_pay_desc_last = 1'b1;
    assign m_axis_pay_desc_valid = state_reg == S_PAY && !pq_full;
    wire   pay_fire = m_axis_pay_desc_valid && m_axis_pay_desc_ready;

    // a payload read's line compare; an entry written in this cycle takes
    // its job's answer (it is the job's span), so a READ of other memory
    // gets no hit for a cycle
    always_ff @(posedge clk)
        for (int i = 0; i < PAYQ; i++)
            if (pay_fire && pq_wr_reg[PAYQ_LOG2-1:0] == PAYQ_LOG2'(i)) pq_ovl_reg[i] <= job_ovl_reg[head] || job_fresh_reg[head];
            else pq_ovl_reg[i] <= span_has(pq_smr_mem[i], pq_sfirst_mem[i], pq_slast_mem[i], pq_swrap_mem[i],
                                           pq_snz_mem[i]);

    always_ff @(posedge clk) begin
        stat_tx_read_resp <= 1'b0;
        stat_access_err <= 1'b0;
        if (qp_reset_valid)
            for (int i = 0; i < JOBS; i++)
                if (job_qpn_mem[i] == qp_reset_qpn) job_dead_mem[i] <= 1'b1;
        // The free slot at wr_reg takes the job's fields in every cycle the
        // queue has room, so their write enables are the pointers' decode and
        // not the responder's valid, which is deep in its head logic; the
        // entry counts only once job_vld_reg is set (every search over the
        // entries is gated by it).
        if (!full) begin
            job_hdr_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_hdr_packed;
            job_va_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_va;
            job_rkey_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_rkey;
            job_pd_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_pd;
            job_len_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_len;
            job_pmtu_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_pmtu;
            job_qpn_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_qpn;
            job_gen_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_gen;
            job_raw_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_raw;
            job_smr_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_rkey[rnic_pkg::MKEY_TAG_BITS +: MR_INDEX_WIDTH];
            job_sfirst_mem[wr_reg[JOBS_LOG2-1:0]] <= span_big ? '0 : s_job_span_first[SPAN_K-1:0];
            job_slast_mem[wr_reg[JOBS_LOG2-1:0]] <= span_big ? '1 : s_job_span_last[SPAN_K-1:0];
            job_swrap_mem[wr_reg[JOBS_LOG2-1:0]] <= !span_big && span_cross;
            job_snz_mem[wr_reg[JOBS_LOG2-1:0]] <= s_job_span_nz;
        end
        job_fresh_reg <= '0;
        // a raw job's PSN and MSN: the free slot's, as the fields above, or
        // a coalesced ACK's into its entry
        for (int i = 0; i < JOBS; i++)
            if ((!full && wr_reg[JOBS_LOG2-1:0] == JOBS_LOG2'(i)) || (coal_fire && coal_tgt_reg[i])) begin
                job_apsn_reg[i] <= s_job_hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
                job_amsn_reg[i] <= s_job_hdr[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W];
            end
        if (!full) job_plain_reg[wr_reg[JOBS_LOG2-1:0]] <= s_job_plain;
        // a READ takes a coalesced ACK to send after it
        for (int i = 0; i < JOBS; i++)
            if (!full && wr_reg[JOBS_LOG2-1:0] == JOBS_LOG2'(i)) job_tack_reg[i] <= 1'b0;
            else if (coal_fire && coal_tgt_reg[i]) job_tack_reg[i] <= 1'b1;
        // a job queued is its QP's newest
        if (job_push) begin
            job_last_reg <= job_last_reg & ~job_in_qp;
            job_last_reg[wr_reg[JOBS_LOG2-1:0]] <= 1'b1;
        end
        if (job_push) begin
            // a job queued in the reset's own cycle was made before it
            job_dead_mem[wr_reg[JOBS_LOG2-1:0]] <= qp_reset_valid && qp_reset_qpn == s_job_qpn;
            job_vld_reg[wr_reg[JOBS_LOG2-1:0]] <= 1'b1;
            job_fresh_reg[wr_reg[JOBS_LOG2-1:0]] <= 1'b1;
            wr_reg <= wr_reg + 1'b1;
        end
        case (state_reg)
            S_IDLE: begin
                psn_reg <= tmpl[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
                va_reg <= job_va_mem[head];
                q_reg <= q0;
                low_reg <= low0;
                mtu_reg <= mtu0;
                lowmask_reg <= lowmask0;
                seg_reg <= (q0 == 0) ? {1'b0, low0} : mtu0;
                seg_nz_reg <= q0 != 0 || low0 != 0;
                first_reg <= 1'b1;
                last_reg <= q0 == 0 || (q0 == 1 && low0 == 0);
                if (!empty) state_reg <= raw ? S_HDR : S_CHK;
            end
            S_CHK: begin
                state_reg <= S_CHK2;
            end
            S_CHK2: begin
                state_reg <= S_HDR;
            end
            S_HDR: begin
                if (chk_bad) begin
                    stat_access_err <= 1'b1;
                    state_reg <= job_end_state;
                end else if (stale) begin
                    state_reg <= job_end_state;
                end else if (raw) begin
                    if (hq_push) state_reg <= S_IDLE;
                end else if (hq_push) begin
                    stat_tx_read_resp <= 1'b1;
                    state_reg <= seg_nz_reg ? S_PAY : S_NEXT;
                end
            end
            S_PAY: begin
                if (pay_fire) state_reg <= S_NEXT;
            end
            S_NEXT: begin
                psn_reg <= psn_nx_reg;
                first_reg <= 1'b0;
                if (last_reg) begin
                    state_reg <= job_end_state;
                end else begin
                    // not the last: the next packet is the last if one MTU
                    // or less is left after it; it is never empty
                    va_reg <= va_nx_reg;
                    q_reg <= q_nx_reg;
                    seg_reg <= (q_reg == 1) ? {1'b0, low_reg} : mtu_reg;
                    seg_nz_reg <= 1'b1;
                    last_reg <= q_reg == 1 || (q_reg == 2 && low_reg == 0);
                    state_reg <= S_CHK;
                end
            end
            S_TACK: begin
                // (a QP reset since: nothing)
                if (hq_push || head_dead_reg) state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase
        // (the head leaves: job_pop says where, for the pointer and the
        // valid bit alike)
        if (job_pop) begin
            rd_reg <= rd_reg + 1'b1;
            job_vld_reg[head] <= 1'b0;
        end
        // (a full queue takes no push: s_job_ready is then only a coalesced ACK)
        if (job_push && !job_pop) begin
            full <= almost_full;
            almost_full <= job_cnt == (JOBS_LOG2+1)'(JOBS - 2);
        end else if (job_pop && !job_push) begin
            full <= 1'b0;
            almost_full <= full;
        end
        hq_nonempty_reg <= (m_hdr_valid && m_hdr_ready) ? hq_push || hq_vld_reg[hq_second]
                                                        : hq_push || hq_nonempty_reg;
        hq_pop_q <= m_hdr_valid && m_hdr_ready;
        hq_pop_idx_q <= hq_rd_reg[HDRQ_LOG2-1:0];
        if (hq_pop_q) hq_vld_reg[hq_pop_idx_q] <= 1'b0;
        if (m_hdr_valid && m_hdr_ready) hq_rd_reg <= hq_rd_reg + 1'b1;
        if (hq_push) begin   // after the pop: a full queue takes no push
            hq_hdr_mem[hq_wr_reg[HDRQ_LOG2-1:0]] <= hdr_packed;
            hq_pay_mem[hq_wr_reg[HDRQ_LOG2-1:0]] <= !raw && state_reg != S_TACK && seg_nz_reg;   // an ACK or NAK has none
            hq_qpn_mem[hq_wr_reg[HDRQ_LOG2-1:0]] <= job_qpn_mem[head];
            hq_vld_reg[hq_wr_reg[HDRQ_LOG2-1:0]] <= 1'b1;
            hq_wr_reg <= hq_wr_reg + 1'b1;
        end
        if (s_pay_status_valid) begin
            pq_vld_reg[pq_rd_reg[PAYQ_LOG2-1:0]] <= 1'b0;
            pq_rd_reg <= pq_rd_reg + 1'b1;
        end
        if (pay_fire) begin
            pq_qpn_mem[pq_wr_reg[PAYQ_LOG2-1:0]] <= job_qpn_mem[head];
            pq_smr_mem[pq_wr_reg[PAYQ_LOG2-1:0]] <= job_smr_mem[head];
            pq_sfirst_mem[pq_wr_reg[PAYQ_LOG2-1:0]] <= job_sfirst_mem[head];
            pq_slast_mem[pq_wr_reg[PAYQ_LOG2-1:0]] <= job_slast_mem[head];
            pq_swrap_mem[pq_wr_reg[PAYQ_LOG2-1:0]] <= job_swrap_mem[head];
            pq_snz_mem[pq_wr_reg[PAYQ_LOG2-1:0]] <= job_snz_mem[head];
            pq_vld_reg[pq_wr_reg[PAYQ_LOG2-1:0]] <= 1'b1;
            pq_wr_reg <= pq_wr_reg + 1'b1;
        end
        if (rst) begin
            state_reg <= S_IDLE;
            wr_reg <= '0;
            rd_reg <= '0;
            full <= 1'b0;
            almost_full <= 1'b0;
            job_vld_reg <= '0;
            hq_wr_reg <= '0;
            hq_rd_reg <= '0;
            hq_vld_reg <= '0;
            hq_pop_q <= 1'b0;
            hq_nonempty_reg <= 1'b0;
            pq_wr_reg <= '0;
            pq_rd_reg <= '0;
            pq_vld_reg <= '0;
            job_fresh_reg <= '0;
            stat_tx_read_resp <= 1'b0;
            stat_access_err <= 1'b0;
        end
    end

    // The responder's count of a QP's READs not yet answered, from per-entry
    // bits registered a cycle ahead (a job written in that cycle compared as
    // it is written) and summed by a balanced tree: a serial count over the
    // queue was the deepest path of the core.
    logic [JOBS-1:0] cnt_qp_reg;             // entry i is a READ job of cnt_rd_qpn
    logic [JOBS-1:0] cnt_gen0_reg, cnt_gen1_reg;   // its generation is cnt_rd_gen, + 1
    logic            cnt_bumped_reg;
    always_ff @(posedge clk) begin
        for (int i = 0; i < JOBS; i++) begin
            if (!full && wr_reg[JOBS_LOG2-1:0] == JOBS_LOG2'(i)) begin
                cnt_qp_reg[i] <= s_job_qpn == cnt_rd_qpn && !s_job_raw;
                cnt_gen0_reg[i] <= s_job_gen == cnt_rd_gen;
                cnt_gen1_reg[i] <= s_job_gen - 4'd1 == cnt_rd_gen;
            end else begin
                cnt_qp_reg[i] <= job_qpn_mem[i] == cnt_rd_qpn && !job_raw_mem[i];
                cnt_gen0_reg[i] <= job_gen_mem[i] == cnt_rd_gen;
                cnt_gen1_reg[i] <= job_gen_mem[i] - 4'd1 == cnt_rd_gen;
            end
        end
        cnt_bumped_reg <= qp_reset_valid && qp_reset_qpn == cnt_rd_qpn;
    end
    logic [JOBS-1:0] cnt_hit;
    always_comb
        for (int i = 0; i < JOBS; i++)
            cnt_hit[i] = job_vld_reg[i] && cnt_qp_reg[i] && (cnt_bumped_reg ? cnt_gen1_reg[i] : cnt_gen0_reg[i]);
    logic [JOBS_LOG2:0] cnt_sum;
    rnic_popcount #(.N(JOBS)) cnt_popcount_inst (.bits(cnt_hit), .count(cnt_sum));
    assign cnt_rd_val = 8'(cnt_sum);

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // every payload answer belongs to a read asked for
    always_ff @(posedge clk) begin
        if (!rst && s_pay_status_valid) assert (pq_wr_reg != pq_rd_reg);
    end
    // the count is that of a full scan of the queue for the QP and
    // generation of the cycle before
    logic [QPN_WIDTH-1:0] ref_qpn;
    logic [3:0]           ref_gen;
    logic                 ref_ok = 1'b0;
    always_ff @(posedge clk) begin
        ref_qpn <= cnt_rd_qpn;
        ref_gen <= cnt_rd_gen + 4'(qp_reset_valid && qp_reset_qpn == cnt_rd_qpn);
        ref_ok <= !rst;
    end
    int ref_cnt;
    always_comb begin
        ref_cnt = 0;
        for (int i = 0; i < JOBS; i++)
            if ((JOBS_LOG2+1)'(JOBS_LOG2'(JOBS_LOG2'(i) - rd_reg[JOBS_LOG2-1:0])) < wr_reg - rd_reg)
                if (!job_raw_mem[i] && job_qpn_mem[i] == ref_qpn && job_gen_mem[i] == ref_gen) ref_cnt++;
    end
    // each packet's registered numbers are those of the offset into the
    // message, computed the straightforward way
    logic [31:0] ref_off;
    wire  [31:0] ref_mtu = 32'(128) << pmtu;
    wire  [31:0] ref_rest = len - ref_off;
    wire         ref_last = ref_rest <= ref_mtu;
    wire  [31:0] ref_seg = ref_last ? ref_rest : ref_mtu;
    always_ff @(posedge clk) begin
        if (state_reg == S_IDLE) ref_off <= '0;
        if (state_reg == S_NEXT) ref_off <= ref_off + 32'(seg_reg);
        if (!rst && state_reg != S_IDLE)
            assert (head_gen_reg == job_gen_mem[head] && head_dead_reg == job_dead_mem[head]);
        if (!rst && state_reg == S_NEXT)
            assert (va_nx_reg == va_reg + 64'(mtu_reg) && q_nx_reg == q_reg - 24'd1 && psn_nx_reg == psn_reg + 24'd1);
        if (!rst && state_reg != S_IDLE && state_reg != S_TACK && !raw) begin
            assert (va_reg == job_va_mem[head] + 64'(ref_off));
            assert (32'(seg_reg) == ref_seg && seg_nz_reg == (ref_seg != 0));
            assert (last_reg == ref_last && first_reg == (ref_off == 0));
            assert (32'(mtu_reg) == ref_mtu && 32'(lowmask_reg) == ref_mtu - 1);
            assert ({q_reg, 12'(low_reg)} == {24'(ref_rest >> (7 + 32'(pmtu))), 12'(len & (ref_mtu - 1))});
        end
    end
    // the header and payload queues' valid bits are their spans
    always_ff @(posedge clk) begin
        for (int i = 0; i < HDRQ; i++)
            if (!rst) assert (hq_vld_reg[i]
                              == (((HDRQ_LOG2+1)'(HDRQ_LOG2'(HDRQ_LOG2'(i) - hq_rd_reg[HDRQ_LOG2-1:0])) < hq_wr_reg - hq_rd_reg)
                                  || (hq_pop_q && HDRQ_LOG2'(i) == hq_pop_idx_q)));
        for (int i = 0; i < PAYQ; i++)
            if (!rst) assert (pq_vld_reg[i]
                              == ((PAYQ_LOG2+1)'(PAYQ_LOG2'(PAYQ_LOG2'(i) - pq_rd_reg[PAYQ_LOG2-1:0])) < pq_wr_reg - pq_rd_reg));
        if (!rst) assert (full == (job_cnt == (JOBS_LOG2+1)'(JOBS))
                          && almost_full == (job_cnt == (JOBS_LOG2+1)'(JOBS - 1))
                          && hq_full == ((hq_wr_reg - hq_rd_reg) == (HDRQ_LOG2+1)'(HDRQ))
                          && hq_nonempty_reg == !hq_empty
                          && pq_full == ((pq_wr_reg - pq_rd_reg) == (PAYQ_LOG2+1)'(PAYQ)));
    end
    // an entry's registered line compare is that of its span against the
    // ATOMIC's address of the cycle before, from the cycle after it is queued
    logic [33:0] ref_at_line;
    logic [MR_INDEX_WIDTH-1:0] ref_at_mr;
    logic [PAYQ-1:0] ref_pq_new;   // written last cycle (its job's answer)
    // the exact compare of the whole span against the ATOMIC of the cycle
    // before, in 64-bit arithmetic (the spans as queued, kept here)
    logic [33:0] ref_job_first [JOBS], ref_pq_first [PAYQ];
    logic [34:0] ref_job_last [JOBS], ref_pq_last [PAYQ];
    function automatic logic ref_span_has(input logic [MR_INDEX_WIDTH-1:0] mr, input logic [33:0] first,
                                          input logic [34:0] last, input logic nz);
        logic [63:0] f, l, a;
        f = {30'h0, first};
        l = {29'h0, last};
        a = {30'h0, ref_at_line};
        if (!nz) return 1'b0;
        if (mr != ref_at_mr) return 1'b1;
        if (last[34]) return a >= f || a + 64'h4_0000_0000 <= l;
        return a >= f && a <= l;
    endfunction
    // ... and the modulo-2^SPAN_K compare the entries make
    function automatic logic ref_mod_has(input logic [MR_INDEX_WIDTH-1:0] mr, input logic [SPAN_K-1:0] first,
                                         input logic [SPAN_K-1:0] last, input logic wrap, input logic nz);
        int unsigned f, l, a;
        f = 32'(first);
        l = 32'(last);
        a = 32'(ref_at_line[SPAN_K-1:0]);
        if (!nz) return 1'b0;
        if (mr != ref_at_mr) return 1'b1;
        if (wrap) return a >= f || a <= l;
        return a >= f && a <= l;
    endfunction
    always_ff @(posedge clk) begin
        ref_at_line <= pend_at_line;
        ref_at_mr <= pend_at_mr;
        ref_pq_new <= '0;
        if (!full) begin
            ref_job_first[wr_reg[JOBS_LOG2-1:0]] <= s_job_span_first;
            ref_job_last[wr_reg[JOBS_LOG2-1:0]] <= s_job_span_last;
        end
        if (pay_fire) begin
            ref_pq_new[pq_wr_reg[PAYQ_LOG2-1:0]] <= 1'b1;
            ref_pq_first[pq_wr_reg[PAYQ_LOG2-1:0]] <= ref_job_first[head];
            ref_pq_last[pq_wr_reg[PAYQ_LOG2-1:0]] <= ref_job_last[head];
        end
        // the entries' compares are the modulo ones, and never miss a line
        // the exact span holds
        for (int i = 0; i < JOBS; i++)
            if (!rst && ref_ok && job_vld_reg[i] && !job_fresh_reg[i]) begin
                assert (job_ovl_reg[i] == ref_mod_has(job_smr_mem[i], job_sfirst_mem[i], job_slast_mem[i],
                                                      job_swrap_mem[i], job_snz_mem[i]));
                if (ref_span_has(job_smr_mem[i], ref_job_first[i], ref_job_last[i], job_snz_mem[i]))
                    assert (job_ovl_reg[i]);
            end
        for (int i = 0; i < PAYQ; i++)
            if (!rst && ref_ok && pq_vld_reg[i] && !ref_pq_new[i]) begin
                assert (pq_ovl_reg[i] == ref_mod_has(pq_smr_mem[i], pq_sfirst_mem[i], pq_slast_mem[i],
                                                     pq_swrap_mem[i], pq_snz_mem[i]));
                if (ref_span_has(pq_smr_mem[i], ref_pq_first[i], ref_pq_last[i], pq_snz_mem[i]))
                    assert (pq_ovl_reg[i]);
            end
    end
    // a coalesced ACK goes into one queued entry of its QP, not the head,
    // a plain ACK or a READ and its QP's newest job; a plain job is raw
    logic [JOBS-1:0] ref_head_1h;
    always_comb begin
        ref_head_1h = '0;
        ref_head_1h[head] = 1'b1;
    end
    logic [QPN_WIDTH-1:0] ref_job_qpn;
    always_ff @(posedge clk) begin
        ref_job_qpn <= s_job_qpn;
        // the interface's promise for a plain ACK
        if (!rst && ref_ok && s_job_valid && s_job_plain) assert (s_job_qpn == ref_job_qpn && s_job_raw);
        if (!rst && coal_fire) begin
            assert ($onehot(coal_tgt_reg & job_vld_reg & ~ref_head_1h));
            assert ((coal_tgt_reg & (job_vld_reg & ~ref_head_1h & (job_plain_reg | ~job_raw_vec) & job_last_reg))
                    == coal_tgt_reg);
            for (int i = 0; i < JOBS; i++)
                if (coal_tgt_reg[i]) assert (job_qpn_mem[i] == s_job_qpn && s_job_raw);
        end
        if (!rst && ((state_reg == S_HDR && raw) || state_reg == S_TACK))
            assert (head_apsn_reg == job_apsn_reg[head] && head_amsn_reg == job_amsn_reg[head]);
    end
    always_ff @(posedge clk) begin
        if (!rst && ref_ok && ref_qpn == cnt_rd_qpn) assert (32'(cnt_rd_val) == ref_cnt);
        // job_vld_reg is the queue's span [rd, wr), entry by entry
        for (int i = 0; i < JOBS; i++)
            if (!rst) assert (job_vld_reg[i]
                              == ((JOBS_LOG2+1)'(JOBS_LOG2'(JOBS_LOG2'(i) - rd_reg[JOBS_LOG2-1:0])) < wr_reg - rd_reg));
    end
`endif
`endif

endmodule

`resetall
