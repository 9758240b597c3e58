// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-xdp: attach vjchan's XDP program to a device, detach it, show it.
 *
 *   vjchan-xdp attach [-m native|skb] DEV
 *   vjchan-xdp detach DEV
 *   vjchan-xdp show [DEV]
 *   vjchan-xdp clean
 *
 * The program (xdp/vjchan.bpf.c, embedded here) goes through libxdp's
 * dispatcher, so it runs next to other XDP programs on the same device.
 * Before attaching, the tool checks that the loaded vjchan module has BTF
 * and that its BTF holds the kfunc vj_xdp_deliver: without it the kernel
 * would refuse the program with a bare EINVAL.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#define PROG_NAME	"vjchan_xdp"
#define KFUNC_NAME	"vj_xdp_deliver"
#define MOD_BTF		"/sys/kernel/btf/vjchan"

/* The object built by xdp/Makefile, linked in by tools/Makefile. */
__asm__(".section .rodata\n"
	".balign 8\n"
	".global vj_xdp_obj\n"
	"vj_xdp_obj:\n"
	".incbin \"" VJ_XDP_OBJ "\"\n"
	".global vj_xdp_obj_end\n"
	"vj_xdp_obj_end:\n"
	".previous\n");
extern const char vj_xdp_obj[], vj_xdp_obj_end[];

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjchan-xdp attach [-m native|skb] DEV\n"
"       vjchan-xdp detach DEV\n"
"       vjchan-xdp show [DEV]\n"
"       vjchan-xdp clean\n"
"\n"
"attach  add vjchan's XDP program to DEV's XDP dispatcher (libxdp); frames\n"
"        of bypass channels are then copied into their rings from XDP\n"
"detach  remove it from DEV, leaving other XDP programs in place\n"
"show    list the devices (or DEV) with the program attached\n"
"clean   drop libxdp's pinned state of devices that are gone, which keeps\n"
"        the vjchan module in use\n"
"  -m, --mode MODE   native (driver XDP, default) or skb (generic XDP)\n");
}

static const char *xdp_err(int err)
{
	static char buf[256];

	libxdp_strerror(err, buf, sizeof(buf));
	return buf;
}

/*
 * Refuse early, with the reason, when the kernel could not load the
 * program: module missing, module without BTF, or BTF without the kfunc.
 */
static int check_module_btf(void)
{
	struct btf *vmlinux, *mod;
	int id;

	if (access("/sys/module/vjchan", F_OK)) {
		fprintf(stderr, "vjchan-xdp: the vjchan module is not loaded\n");
		return -1;
	}
	if (access(MOD_BTF, F_OK)) {
		fprintf(stderr,
			"vjchan-xdp: vjchan has no BTF (%s missing): the module was built\n"
			"without pahole, or its BTF does not match the running kernel\n"
			"(see \"missing module BTF\" in the kernel log); the XDP path\n"
			"cannot be used\n", MOD_BTF);
		return -1;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "vjchan-xdp: the kernel has no BTF (/sys/kernel/btf/vmlinux): %s\n",
			strerror(errno));
		return -1;
	}
	mod = btf__parse_split(MOD_BTF, vmlinux);
	if (!mod) {
		fprintf(stderr, "vjchan-xdp: cannot read %s: %s\n", MOD_BTF,
			strerror(errno));
		btf__free(vmlinux);
		return -1;
	}
	id = btf__find_by_name_kind(mod, KFUNC_NAME, BTF_KIND_FUNC);
	btf__free(mod);
	btf__free(vmlinux);
	if (id < 0) {
		fprintf(stderr,
			"vjchan-xdp: the loaded vjchan's BTF has no %s: the module is\n"
			"older than this tool, or its BTF is broken; refusing to attach\n",
			KFUNC_NAME);
		return -1;
	}
	return 0;
}

static int dev_index(const char *dev)
{
	int ifindex = if_nametoindex(dev);

	if (!ifindex)
		fprintf(stderr, "vjchan-xdp: no device %s\n", dev);
	return ifindex;
}

/* Our program in @mp, or NULL. */
static struct xdp_program *find_prog(const struct xdp_multiprog *mp)
{
	struct xdp_program *p;

	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		return p && !strcmp(xdp_program__name(p), PROG_NAME) ? p : NULL;
	}
	for (p = xdp_multiprog__next_prog(NULL, mp); p;
	     p = xdp_multiprog__next_prog(p, mp))
		if (!strcmp(xdp_program__name(p), PROG_NAME))
			return p;
	return NULL;
}

static struct xdp_multiprog *get_mp(int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);

	return libxdp_get_error(mp) ? NULL : mp;
}

static int do_attach(const char *dev, enum xdp_attach_mode mode)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .object_name = "vjchan_xdp");
	struct xdp_multiprog *mp;
	struct xdp_program *prog;
	struct bpf_object *obj;
	int ifindex, err;

	ifindex = dev_index(dev);
	if (!ifindex)
		return 1;
	if (check_module_btf())
		return 1;
	mp = get_mp(ifindex);
	if (mp) {
		bool dup = find_prog(mp);

		xdp_multiprog__close(mp);
		if (dup) {
			fprintf(stderr, "vjchan-xdp: already attached to %s\n", dev);
			return 1;
		}
	}
	obj = bpf_object__open_mem(vj_xdp_obj, vj_xdp_obj_end - vj_xdp_obj,
				   &oopts);
	if (!obj) {
		fprintf(stderr, "vjchan-xdp: cannot open the program: %s\n",
			strerror(errno));
		return 1;
	}
	prog = xdp_program__from_bpf_obj(obj, NULL);
	err = libxdp_get_error(prog);
	if (err) {
		fprintf(stderr, "vjchan-xdp: %s\n", xdp_err(err));
		bpf_object__close(obj);
		return 1;
	}
	/*
	 * The program is SEC("xdp.frags"); say so to libxdp, which does not
	 * learn it from an opened object, so that the dispatcher is loaded
	 * for multi-buffer frames too (needed above a page of MTU).
	 */
	err = xdp_program__set_xdp_frags_support(prog, true);
	if (!err)
		err = xdp_program__attach(prog, ifindex, mode, 0);
	if (err)
		fprintf(stderr, "vjchan-xdp: attach to %s: %s\n", dev,
			xdp_err(err));
	else
		printf("attached to %s (%s)\n", dev,
		       mode == XDP_MODE_SKB ? "skb" : "native");
	xdp_program__close(prog);
	bpf_object__close(obj);
	return err ? 1 : 0;
}

static int do_detach(const char *dev)
{
	struct xdp_multiprog *mp;
	struct xdp_program *prog;
	int ifindex, err;

	ifindex = dev_index(dev);
	if (!ifindex)
		return 1;
	mp = get_mp(ifindex);
	prog = mp ? find_prog(mp) : NULL;
	if (!prog) {
		fprintf(stderr, "vjchan-xdp: not attached to %s\n", dev);
		if (mp)
			xdp_multiprog__close(mp);
		return 1;
	}
	err = xdp_program__detach(prog, ifindex,
				  xdp_multiprog__attach_mode(mp), 0);
	if (err)
		fprintf(stderr, "vjchan-xdp: detach from %s: %s\n", dev,
			xdp_err(err));
	else
		printf("detached from %s\n", dev);
	xdp_multiprog__close(mp);
	return err ? 1 : 0;
}

static const char *mode_name(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE:	return "native";
	case XDP_MODE_SKB:	return "skb";
	case XDP_MODE_HW:	return "hw";
	default:		return "none";
	}
}

/* One line per device with the program: "DEV MODE PROGRAMS". */
static int show_one(const char *dev, int ifindex, int quiet)
{
	struct xdp_multiprog *mp = get_mp(ifindex);
	int found = 0;

	if (mp && find_prog(mp)) {
		printf("%s %s %d\n", dev,
		       mode_name(xdp_multiprog__attach_mode(mp)),
		       xdp_multiprog__is_legacy(mp) ? 1 :
		       xdp_multiprog__program_count(mp));
		found = 1;
	} else if (!quiet) {
		printf("%s none 0\n", dev);
	}
	if (mp)
		xdp_multiprog__close(mp);
	return found;
}

static int do_show(const char *dev)
{
	struct if_nameindex *ifs, *i;

	if (dev) {
		int ifindex = dev_index(dev);

		if (!ifindex)
			return 1;
		show_one(dev, ifindex, 0);
		return 0;
	}
	ifs = if_nameindex();
	if (!ifs) {
		perror("vjchan-xdp: if_nameindex");
		return 1;
	}
	for (i = ifs; i->if_index; i++)
		show_one(i->if_name, i->if_index, 1);
	if_freenameindex(ifs);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode",	required_argument,	NULL, 'm' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum xdp_attach_mode mode = XDP_MODE_NATIVE;
	const char *cmd;
	int c, err;

	while ((c = getopt_long(argc, argv, "+m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "native"))
				mode = XDP_MODE_NATIVE;
			else if (!strcmp(optarg, "skb"))
				mode = XDP_MODE_SKB;
			else {
				fprintf(stderr, "vjchan-xdp: bad mode %s\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* Options may also follow the command: vjchan-xdp attach -m skb DEV */
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	while ((c = getopt_long(argc, argv, "+m:", opts, NULL)) != -1) {
		if (c != 'm' || (strcmp(optarg, "native") && strcmp(optarg, "skb"))) {
			usage(stderr);
			return 2;
		}
		mode = strcmp(optarg, "skb") ? XDP_MODE_NATIVE : XDP_MODE_SKB;
	}
	libbpf_set_print(NULL);
	if (!strcmp(cmd, "attach") && optind == argc - 1)
		return do_attach(argv[optind], mode);
	if (!strcmp(cmd, "detach") && optind == argc - 1)
		return do_detach(argv[optind]);
	if (!strcmp(cmd, "show") && optind >= argc - 1)
		return do_show(optind < argc ? argv[optind] : NULL);
	if (!strcmp(cmd, "clean") && optind == argc) {
		err = libxdp_clean_references(0);
		if (err)
			fprintf(stderr, "vjchan-xdp: clean: %s\n", xdp_err(err));
		return err ? 1 : 0;
	}
	usage(stderr);
	return 2;
}
