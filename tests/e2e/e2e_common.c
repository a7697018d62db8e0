/* What the end-to-end programs share; see e2e_common.h. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "e2e_common.h"

int e2e_width = 64;
uint64_t e2e_seed = 1;
const char *e2e_pcap_dir;
int e2e_quick;
int e2e_passed, e2e_failed;

static uint64_t rng_state;

int e2e_parse_args(int argc, char **argv, const char *prog, const char *help)
{
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 's'},
		{"pcap-dir", required_argument, NULL, 'p'},
		{"quick", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "w:s:p:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': e2e_width = atoi(optarg); break;
		case 's': e2e_seed = strtoull(optarg, NULL, 0); break;
		case 'p': e2e_pcap_dir = optarg; break;
		case 'q': e2e_quick = 1; break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: %s --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]\n%s", prog, help);
			return c == 'h' ? 0 : 2;
		}
	}
	if (e2e_width != 64 && e2e_width != 512) {
		fprintf(stderr, "%s: --width must be 64 or 512\n", prog);
		return 2;
	}
	return -1;
}

void e2e_result(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s w%d ", ok ? "PASS" : "FAIL", e2e_width);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (ok)
		e2e_passed++;
	else
		e2e_failed++;
}

int e2e_summary(void)
{
	printf("%d passed, %d failed\n", e2e_passed, e2e_failed);
	return e2e_failed ? 1 : 0;
}

void e2e_rng_seed(uint64_t s)
{
	rng_state = s;
}

uint64_t e2e_rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t e2e_counter_or(struct rnic_context *ctx, uint32_t reg, uint32_t on_error)
{
	uint32_t v = 0;

	if (rnic_read_counter(ctx, reg, &v))
		return on_error;
	return v;
}

void e2e_nic_health(struct rnic_sim_nic *nic, struct e2e_nic_health *h)
{
	struct rnic_sim_mem_stats st;
	struct rnic_sim_bar_stats bs;

	rnic_sim_nic_mem_stats(nic, &st);
	rnic_sim_nic_bar_stats(nic, &bs);
	h->faults = rnic_sim_nic_faults(nic, NULL, 0);
	h->protocol_errors = st.protocol_errors;
	h->bar_errors = bs.errors;
}

void e2e_check_nics(struct rnic_world *w, const char *tag, int bar)
{
	for (unsigned int i = 0; i < rnic_world_num_nics(w); i++) {
		struct e2e_nic_health h;

		e2e_nic_health(rnic_world_nic(w, (int)i), &h);
		if (bar)
			e2e_result(h.faults == 0 && h.protocol_errors == 0 && h.bar_errors == 0,
				   "%s: NIC %u DMA faults %llu, AXI protocol errors %llu, BAR errors %llu", tag, i,
				   (unsigned long long)h.faults, (unsigned long long)h.protocol_errors,
				   (unsigned long long)h.bar_errors);
		else
			e2e_result(h.faults == 0 && h.protocol_errors == 0,
				   "%s: NIC %u DMA faults %llu, AXI protocol errors %llu", tag, i,
				   (unsigned long long)h.faults, (unsigned long long)h.protocol_errors);
	}
}
