# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The real UDP servers of tests/servers.sh and bench/dns.sh: their
# configuration, written the same for a plain run and a run under
# vjchan-run, and how to start them.  Sourced in the guest.
#
#   srv_install         copy out/servers/ (scripts/fetch-servers.sh) over
#                       the guest's throw-away root
#   srv_zone DIR        the zone example.test in DIR/example.test.zone
#   srv_conf NAME DIR   NAME's configuration in DIR (nsd, knot, unbound,
#                       rsyslog); prints the command that runs it in the
#                       foreground
#
# Set before srv_conf: SRV_ADDR4, SRV_ADDR6 (the addresses the server
# listens on; one may be empty), SRV_PORT (default 53, 514 for rsyslog),
# SRV_THREADS (server processes, workers or threads; default 2).
# NSD's response rate limit (on in Debian's build: 200 answers a second
# per /24) is off, as every query here comes from one address; Knot's and
# Unbound's are off by default.
# Every DNS server answers www.example.test A 203.0.113.7 and AAAA
# 2001:db8::7, from its zone (NSD, Knot) or local data (Unbound).

# srv_chans FAMILY PORT: rx_packets of every channel of that family (ipv4,
# ipv6) bound to dport PORT, one line each.
srv_chans() {
	awk -v fam="$1" -v port="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["family"] == fam && $col["dport"] == port { print $col["rx_packets"] }
	' /proc/net/vjchan
}

srv_install() {
	local top=${top:-$PWD}
	[ -f "$top/out/servers/.complete" ] || {
		echo "out/servers missing (scripts/fetch-servers.sh)"
		return 1
	}
	# usr-merged root: lib -> usr/lib stays a link.
	tar -C "$top/out/servers" --exclude=./.complete -cf - . |
		tar -C / --keep-directory-symlink -xf - || return 1
	# The servers' run-time directories, made by their services otherwise.
	mkdir -p /run/nsd /run/knot /run/unbound /var/lib/knot /var/spool/rsyslog
}

srv_zone() {
	cat >"$1/example.test.zone" <<-'EOF'
	$ORIGIN example.test.
	$TTL 3600
	@	IN SOA	ns.example.test. admin.example.test. 1 3600 900 604800 60
	@	IN NS	ns.example.test.
	ns	IN A	192.0.2.1
	www	IN A	203.0.113.7
	www	IN AAAA	2001:db8::7
	EOF
}

srv_conf() {
	local name=$1 dir=$2 port=${SRV_PORT:-53} n=${SRV_THREADS:-2} a
	case $name in
	nsd)
		srv_zone "$dir"
		{
			echo "server:"
			for a in $SRV_ADDR4 $SRV_ADDR6; do
				echo "	ip-address: $a"
			done
			cat <<-EOF
				port: $port
				server-count: $n
				reuseport: yes
				username: ""
				chroot: ""
				database: ""
				zonesdir: "$dir"
				zonelistfile: "$dir/nsd.zonelist"
				xfrdfile: "$dir/xfrd.state"
				xfrdir: "$dir"
				pidfile: "$dir/nsd.pid"
				logfile: "$dir/nsd.log"
				verbosity: 1
				rrl-ratelimit: 0
				rrl-whitelist-ratelimit: 0
			remote-control:
				control-enable: no
			zone:
				name: example.test
				zonefile: example.test.zone
			EOF
		} >"$dir/nsd.conf"
		echo "nsd -d -c $dir/nsd.conf"
		;;
	knot)
		srv_zone "$dir"
		mkdir -p "$dir/knot"
		{
			echo "server:"
			echo "    rundir: \"$dir/knot\""
			echo "    udp-workers: $n"
			echo "    tcp-workers: 1"
			echo "    background-workers: 1"
			for a in $SRV_ADDR4 $SRV_ADDR6; do
				echo "    listen: $a@$port"
			done
			cat <<-EOF
			log:
			  - target: stderr
			    any: info
			database:
			    storage: "$dir/knot"
			template:
			  - id: default
			    storage: "$dir"
			    zonefile-sync: -1
			    zonefile-load: whole
			    journal-content: none
			zone:
			  - domain: example.test
			    file: "$dir/example.test.zone"
			EOF
		} >"$dir/knot.conf"
		echo "knotd -c $dir/knot.conf"
		;;
	unbound)
		{
			echo "server:"
			for a in $SRV_ADDR4 $SRV_ADDR6; do
				echo "	interface: $a"
			done
			cat <<-EOF
				port: $port
				num-threads: $n
				so-reuseport: yes
				username: ""
				chroot: ""
				directory: "$dir"
				pidfile: "$dir/unbound.pid"
				use-syslog: no
				logfile: ""
				verbosity: 1
				do-ip4: yes
				do-ip6: yes
				do-tcp: yes
				module-config: "iterator"
				access-control: 0.0.0.0/0 allow
				access-control: ::/0 allow
				local-zone: "example.test." static
				local-data: "www.example.test. 3600 IN A 203.0.113.7"
				local-data: "www.example.test. 3600 IN AAAA 2001:db8::7"
			remote-control:
				control-enable: no
			EOF
		} >"$dir/unbound.conf"
		echo "unbound -d -c $dir/unbound.conf"
		;;
	rsyslog)
		port=${SRV_PORT:-514}
		{
			echo "global(workDirectory=\"$dir\")"
			echo "module(load=\"imudp\" threads=\"$n\")"
			for a in $SRV_ADDR4 $SRV_ADDR6; do
				echo "input(type=\"imudp\" address=\"$a\" port=\"$port\")"
			done
			echo "template(name=\"msg\" type=\"string\" string=\"%msg%\\n\")"
			echo "*.* action(type=\"omfile\" file=\"$dir/rsyslog.log\" template=\"msg\")"
		} >"$dir/rsyslog.conf"
		echo "rsyslogd -n -f $dir/rsyslog.conf -i $dir/rsyslog.pid"
		;;
	*)
		echo "srv_conf: no server $name" >&2
		return 1
		;;
	esac
}
