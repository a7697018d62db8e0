/* The host and link model's command-line options (rnic_sim.h): one parser
 * for every program that builds a world, so that a figure of any of them can
 * be reproduced under the same assumptions. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"

#define MEM_BW_MAX 4096.0         /* bytes per cycle; the bus caps it far lower */
#define MEM_LATENCY_MAX 1000000u  /* cycles: 4 ms */
#define LINK_LATENCY_MAX 100000000u

static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || s[0] == '-' || *v < min || *v > max ? -1 : 0;
}

/* The boards a world can simulate, as the options and the reports name
 * them; what the world itself needs of each (clocks, bus width, LEDs) is in
 * world.c. The core's width is the board top's (boards/<board>/). */
static const struct {
	const char *name;
	unsigned int data_width;
} sim_boards[RNIC_SIM_BOARD_COUNT] = {
	[RNIC_SIM_BOARD_NONE] = {"none", 0},
	[RNIC_SIM_BOARD_AU250] = {"au250", 512},
	[RNIC_SIM_BOARD_KCU105] = {"kcu105", 64},
};

int rnic_sim_board_parse(const char *name)
{
	for (int b = 0; name && b < RNIC_SIM_BOARD_COUNT; b++)
		if (!strcmp(name, sim_boards[b].name))
			return b;
	return -1;
}

const char *rnic_sim_board_name(unsigned int board)
{
	return board < RNIC_SIM_BOARD_COUNT ? sim_boards[board].name : "?";
}

unsigned int rnic_sim_board_width(unsigned int board)
{
	return board < RNIC_SIM_BOARD_COUNT ? sim_boards[board].data_width : 0;
}

int rnic_sim_model_opt(struct rnic_sim_cfg *cfg, const char *prog, const char *name, const char *val)
{
	uint64_t u;
	double d;
	char *end;

	if (!strcmp(name, "mem-bw")) {
		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(d) || d <= 0 || d > MEM_BW_MAX) {
			fprintf(stderr, "%s: --mem-bw: '%s' is not a bandwidth in bytes per cycle above 0 "
				"(at most %.0f)\n", prog, val, MEM_BW_MAX);
			return -EINVAL;
		}
		cfg->mem_rd_bw = cfg->mem_wr_bw = d;
		return 0;
	}
	if (!strcmp(name, "mem-latency")) {
		if (parse_uint(val, 1, MEM_LATENCY_MAX, &u)) {
			fprintf(stderr, "%s: --mem-latency: '%s' is not a read round trip in cycles, 1..%u\n",
				prog, val, MEM_LATENCY_MAX);
			return -EINVAL;
		}
		/* writes keep the default proportion: in memory and answered in half a read */
		cfg->mem_rd_latency = (unsigned int)u;
		cfg->mem_wr_latency = (unsigned int)((u + 1) / 2);
		return 0;
	}
	if (!strcmp(name, "link-latency")) {
		if (parse_uint(val, 0, LINK_LATENCY_MAX, &u)) {
			fprintf(stderr, "%s: --link-latency: '%s' is not a latency in cycles, 0..%u\n", prog, val,
				LINK_LATENCY_MAX);
			return -EINVAL;
		}
		cfg->link_latency = (unsigned int)u;
		return 0;
	}
	if (!strcmp(name, "board")) {
		int b = rnic_sim_board_parse(val);

		if (b < 0) {
			fprintf(stderr, "%s: --board: '%s' is not one of au250, kcu105, none\n", prog, val);
			return -EINVAL;
		}
		cfg->board = (unsigned int)b;
		if (rnic_sim_board_width(cfg->board))
			cfg->data_width = rnic_sim_board_width(cfg->board);
		return 0;
	}
	return -ENOENT;
}

void rnic_sim_model_help(FILE *f, int indent, int col)
{
	static const char *const lines[][2] = {
		{"--mem-bw B", "host-memory bandwidth per direction, bytes/cycle (default"},
		{NULL, "32 at 64 bits: PCIe Gen3 x8; 54 at 512 bits: Gen3 x16)"},
		{"--mem-latency N", "host-memory read round trip, cycles (default 200 = 800 ns);"},
		{NULL, "writes reach memory and are answered in N/2 (default 100)"},
		{"--link-latency N", "link propagation delay, cycles (default 100 = 400 ns)"},
		{"--board B", "simulate board B's design (au250, kcu105) around the core:"},
		{NULL, "its top with models of the vendor IP, three clocks (programs"},
		{NULL, "linked with the board models only; sets the width)"},
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *opt = lines[i][0] ? lines[i][0] : "";
		int n = (int)strlen(opt);

		/* an option longer than its column gets the text on the next line */
		if (n >= col - indent)
			fprintf(f, "%*s%s\n%*s%s\n", indent, "", opt, col, "", lines[i][1]);
		else
			fprintf(f, "%*s%-*s%s\n", indent, "", col - indent, opt, lines[i][1]);
	}
}
