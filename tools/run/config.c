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
 * Fills *cfg from the environment.  Returns 0, or -1 with the reason in
 * cfg->error (the rest of *cfg then selects nothing).
 */
int vj_run_config_load(struct vj_run_config *cfg)
{
	const char *mode = getenv(VJ_RUN_ENV_MODE);
	char why[sizeof(cfg->error) - 32];

	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = VJ_BIND_FW_FILTERED;
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
	return 0;
bad:
	memset(&cfg->ports, 0, sizeof(cfg->ports));
	return -1;
}
