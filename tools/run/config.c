// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The configuration of libvjchan-run.so, from the environment that
 * vjchan-run(1) sets:
 *
 *   VJCHAN_RUN_PORTS     the selected ports (ports.c); unset or empty: all
 *   VJCHAN_RUN_MODE      filtered (the default), sanctioned or bypass
 *   VJCHAN_RUN_VERBOSE   1: log replacements and sockets left alone
 *   VJCHAN_RUN_FALLBACK  1: bind the ordinary socket if no channel can be
 *                        made (see replace.c for when that is)
 *   VJCHAN_RUN_ENTRIES   the channels' ring entries (VJ_RING), a power of two
 *   VJCHAN_RUN_BUF_SIZE  their buffer size, a power of two: longer
 *                        datagrams are held whole
 *   VJCHAN_RUN_SPREAD    hash, cpu or consumer: the channels' VJ_GROUP
 *                        spread rule; unset or empty: the kernel's default
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static const struct {
	const char	*name;
	uint32_t	mode;
} modes[] = {
	{ "filtered",	VJ_BIND_FW_FILTERED },
	{ "sanctioned",	VJ_BIND_FW_SANCTIONED },
	{ "bypass",	VJ_BIND_FW_BYPASS },
};

int vj_run_mode_parse(const char *name, uint32_t *mode)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(name, modes[i].name)) {
			*mode = modes[i].mode;
			return 0;
		}
	}
	return -1;
}

const char *vj_run_mode_name(uint32_t mode)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i].mode == mode)
			return modes[i].name;
	return "?";
}

static const char *const spreads[] = {
	[VJ_SPREAD_HASH] = "hash",
	[VJ_SPREAD_CPU] = "cpu",
	[VJ_SPREAD_CONSUMER] = "consumer",
};

int vj_run_spread_parse(const char *name, int *spread)
{
	size_t i;

	for (i = 0; i < sizeof(spreads) / sizeof(spreads[0]); i++) {
		if (!strcmp(name, spreads[i])) {
			*spread = i;
			return 0;
		}
	}
	return -1;
}

const char *vj_run_spread_name(int spread)
{
	if (spread < 0 || spread >= (int)(sizeof(spreads) / sizeof(spreads[0])))
		return "?";
	return spreads[spread];
}

/* A switch: unset, "" and "0" are off, "1" is on, anything else an error. */
static int env_switch(const char *name, bool *on)
{
	const char *v = getenv(name);

	if (!v || !*v || !strcmp(v, "0")) {
		*on = false;
		return 0;
	}
	if (!strcmp(v, "1")) {
		*on = true;
		return 0;
	}
	return -1;
}

/*
 * A VJ_RING value: unset or empty is 0 (the kernel's default), else a power
 * of two in [min, max].
 */
static int env_pow2(const char *name, uint32_t min, uint32_t max, uint32_t *v)
{
	const char *s = getenv(name);
	unsigned long long n = 0;

	*v = 0;
	if (!s || !*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > max)
			return -1;
		n = n * 10 + (*s - '0');
	}
	if (n < min || n > max || (n & (n - 1)))
		return -1;
	*v = n;
	return 0;
}

/*
 * Fills *cfg from the environment.  Returns 0, or -1 with the reason in
 * cfg->error (the rest of *cfg then selects nothing).
 */
int vj_run_config_load(struct vj_run_config *cfg)
{
	const char *mode = getenv(VJ_RUN_ENV_MODE);
	const char *spread = getenv(VJ_RUN_ENV_SPREAD);
	char why[sizeof(cfg->error) - 32];

	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = VJ_BIND_FW_FILTERED;
	cfg->spread = -1;
	if (vj_run_ports_parse(&cfg->ports, getenv(VJ_RUN_ENV_PORTS),
			       why, sizeof(why)) < 0) {
		snprintf(cfg->error, sizeof(cfg->error), "%s: %s",
			 VJ_RUN_ENV_PORTS, why);
		goto bad;
	}
	if (mode && *mode && vj_run_mode_parse(mode, &cfg->mode) < 0) {
		snprintf(cfg->error, sizeof(cfg->error),
			 "%s: unknown mode '%.40s' (filtered, sanctioned or bypass)",
			 VJ_RUN_ENV_MODE, mode);
		goto bad;
	}
	if (env_switch(VJ_RUN_ENV_VERBOSE, &cfg->verbose) < 0) {
		snprintf(cfg->error, sizeof(cfg->error), "%s must be 0 or 1",
			 VJ_RUN_ENV_VERBOSE);
		goto bad;
	}
	if (env_switch(VJ_RUN_ENV_FALLBACK, &cfg->fallback) < 0) {
		snprintf(cfg->error, sizeof(cfg->error), "%s must be 0 or 1",
			 VJ_RUN_ENV_FALLBACK);
		goto bad;
	}
	if (env_pow2(VJ_RUN_ENV_ENTRIES, VJ_RING_MIN_ENTRIES,
		     VJ_RING_MAX_ENTRIES, &cfg->entries) < 0) {
		snprintf(cfg->error, sizeof(cfg->error),
			 "%s must be a power of two from %d to %d",
			 VJ_RUN_ENV_ENTRIES, VJ_RING_MIN_ENTRIES,
			 VJ_RING_MAX_ENTRIES);
		goto bad;
	}
	if (env_pow2(VJ_RUN_ENV_BUF_SIZE, VJ_BUF_MIN_SIZE, VJ_BUF_MAX_SIZE,
		     &cfg->buf_size) < 0) {
		snprintf(cfg->error, sizeof(cfg->error),
			 "%s must be a power of two from %d to %d",
			 VJ_RUN_ENV_BUF_SIZE, VJ_BUF_MIN_SIZE, VJ_BUF_MAX_SIZE);
		goto bad;
	}
	if (spread && *spread && vj_run_spread_parse(spread, &cfg->spread) < 0) {
		snprintf(cfg->error, sizeof(cfg->error),
			 "%s: unknown spread rule '%.40s' (hash, cpu or consumer)",
			 VJ_RUN_ENV_SPREAD, spread);
		goto bad;
	}
	return 0;
bad:
	memset(&cfg->ports, 0, sizeof(cfg->ports));
	return -1;
}
