/* `make bench`: RDMA WRITE goodput in simulated cycles, reported as Gb/s at
 * the stated clock and as a fraction of the link rate, for 64 B, 4 KiB and
 * 64 KiB messages on the 64- and 512-bit data paths. Cycle counts are exact
 * and repeatable: same build, same seed, same figures.
 *
 *   rnic-bench [--json FILE] [--quick]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"

struct record {
	char name[64];
	int width;
	size_t msg;
	int qps;
	uint64_t messages;
	uint64_t cycles;
	double gbps;
	double link_gbps;
	double wire_fraction;
	unsigned clock_mhz;
};

/* Stream `count` WRITEs of `msg` bytes, keeping the send queue full; every
 * 16th WQE and the last are signaled. Returns cycles from the first doorbell
 * to the last completion, 0 on failure. */
static uint64_t write_stream(struct sim_pair *p, size_t msg, uint64_t count)
{
	const int depth = 128, signal_every = 16;
	size_t slots = 64;
	uint8_t *src = aligned_alloc(4096, (msg * slots + 4095) & ~(size_t)4095);
	uint8_t *dst = aligned_alloc(4096, (msg * slots + 4095) & ~(size_t)4095);
	struct rnic_mr *smr = NULL, *dmr = NULL;
	uint64_t posted = 0, done = 0, c0, cycles = 0;
	struct rnic_qp *qp = p->side[0].qp[0];

	if (!src || !dst)
		goto out;
	for (size_t i = 0; i < msg * slots; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	smr = rnic_reg_mr(p->side[0].pd, src, msg * slots, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p->side[1].pd, dst, msg * slots, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr)
		goto out;
	c0 = rnic_world_cycle(p->world);
	while (done < count) {
		while (posted < count && posted - done < (uint64_t)depth) {
			size_t slot = posted % slots;
			struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)(src + slot * msg), (uint32_t)msg, smr->lkey};
			struct rnic_send_wr wr, *bad;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = RNIC_WR_RDMA_WRITE;
			wr.send_flags = ((posted + 1) % signal_every == 0 || posted + 1 == count) ? RNIC_SEND_SIGNALED : 0;
			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(dst + slot * msg);
			wr.wr.rdma.rkey = dmr->rkey;
			if (rnic_post_send(qp, &wr, &bad))
				break;
			posted++;
		}
		struct rnic_wc wc[16];
		int n = sim_pair_wait(p->side[0].cq, wc, 1, 50000000ull);

		if (n != 1 || wc[0].status != RNIC_WC_SUCCESS) {
			fprintf(stderr, "rnic-bench: %s after %llu of %llu messages\n",
				n ? rnic_wc_status_str(wc[0].status) : "no completion", (unsigned long long)done,
				(unsigned long long)count);
			goto out;
		}
		done = wc[0].wr_id + 1; /* the unsignaled ones before it completed too */
	}
	cycles = rnic_world_cycle(p->world) - c0;
	if (memcmp(src + ((count - 1) % slots) * msg, dst + ((count - 1) % slots) * msg, msg))
		cycles = 0;
out:
	if (smr)
		rnic_dereg_mr(smr);
	if (dmr)
		rnic_dereg_mr(dmr);
	free(src);
	free(dst);
	return cycles;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", required_argument, NULL, 'j'},
		{"quick", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *json = "build/bench/results.json";
	const int widths[] = {64, 512};
	const size_t msgs[] = {64, 4096, 65536};
	struct record rec[8];
	int nrec = 0, quick = 0, c, failed = 0;
	FILE *f;

	while ((c = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = optarg; break;
		case 'q': quick = 1; break;
		default:
			printf("usage: %s [--json FILE] [--quick]\nRDMA WRITE goodput of two simulated NICs.\n",
			       argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	printf("%-22s %6s %9s %4s %9s %12s %10s %8s\n", "benchmark", "width", "msg", "qps", "messages", "cycles",
	       "Gb/s", "of link");
	for (int wi = 0; wi < 2; wi++) {
		for (int mi = 0; mi < 3; mi++) {
			struct rnic_sim_cfg cfg;
			struct sim_pair_opts o;
			struct sim_pair p;
			struct rnic_world *w;
			struct record *r = &rec[nrec];
			uint64_t total = quick ? (2u << 20) : (8u << 20);

			rnic_sim_cfg_default(&cfg);
			cfg.num_nics = 2;
			cfg.data_width = (unsigned)widths[wi];
			w = rnic_world_create(&cfg);
			sim_pair_default_opts(&o);
			if (!w || sim_pair_open(&p, w, &o)) {
				fprintf(stderr, "rnic-bench: setup failed\n");
				return 1;
			}
			memset(r, 0, sizeof(*r));
			r->width = widths[wi];
			r->msg = msgs[mi];
			r->qps = 1;
			r->messages = total / msgs[mi];
			if (r->messages > (quick ? 500u : 2000u))
				r->messages = quick ? 500u : 2000u;
			r->clock_mhz = cfg.clock_mhz;
			r->cycles = write_stream(&p, r->msg, r->messages);
			r->link_gbps = rnic_world_cfg(w)->link_rate * 8.0 * cfg.clock_mhz / 1000.0;
			if (r->cycles) {
				r->gbps = (double)r->msg * (double)r->messages * 8.0 * cfg.clock_mhz / ((double)r->cycles * 1000.0);
				r->wire_fraction = r->gbps / r->link_gbps;
			} else {
				failed = 1;
			}
			snprintf(r->name, sizeof(r->name), "write_bw_w%d_%zuB", r->width, r->msg);
			printf("%-22s %6d %9zu %4d %9llu %12llu %10.3f %7.1f%%\n", r->name, r->width, r->msg, r->qps,
			       (unsigned long long)r->messages, (unsigned long long)r->cycles, r->gbps,
			       100.0 * r->wire_fraction);
			fflush(stdout);
			nrec++;
			sim_pair_close(&p);
			rnic_world_destroy(w);
		}
	}
	f = fopen(json, "w");
	if (!f) {
		fprintf(stderr, "rnic-bench: %s: %s\n", json, strerror(errno));
		return 1;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < nrec; i++) {
		struct record *r = &rec[i];

		fprintf(f,
			"  {\"name\": \"%s\", \"op\": \"rdma_write\", \"width_bits\": %d, \"msg_bytes\": %zu, \"qps\": %d, "
			"\"value\": %.4f, \"unit\": \"Gb/s\", \"wire_fraction\": %.4f, \"link_gbps\": %.1f, "
			"\"cycles\": %llu, \"messages\": %llu, \"clock_mhz\": %u}%s\n",
			r->name, r->width, r->msg, r->qps, r->gbps, r->wire_fraction, r->link_gbps,
			(unsigned long long)r->cycles, (unsigned long long)r->messages, r->clock_mhz,
			i + 1 < nrec ? "," : "");
	}
	fprintf(f, "]\n");
	fclose(f);
	printf("results: %s\n", json);
	return failed;
}
