// SPDX-License-Identifier: GPL-2.0
/*
 * vjchan: Van Jacobson network channels.  Module set-up and teardown, the
 * per-namespace state and the device notifier.
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "vj_direct.h"
#include "vj_flow.h"
#include "vj_hook.h"
#include "vj_net.h"
#include "vj_pool.h"
#include "vj_proc.h"
#include "vj_socket.h"
#include "vj_stack.h"
#include "vj_udp.h"
#include "vj_wake.h"
#include "vj_xdp.h"

#define VJ_POOL_MAX	(1024 * 1024)

static unsigned int pool_buffers = 1024;
module_param(pool_buffers, uint, 0444);
MODULE_PARM_DESC(pool_buffers,
		 "global buffers for the driver API (default 1024, at most 2^20)");

unsigned int vj_net_id __read_mostly;

static int __net_init vj_pernet_init(struct net *net)
{
	struct vj_net *vn = vj_pernet(net);

	vj_flow_net_init(vn, net);
	return vj_proc_net_init(net);
}

/*
 * Unhook before the core's synchronize_rcu() that separates pre_exit from
 * exit: after it no receive path can still be using vn, its table or its
 * mask lists, which exit frees.
 */
static void __net_exit vj_pernet_pre_exit(struct net *net)
{
	struct vj_net *vn = vj_pernet(net);

	mutex_lock(&vn->lock);
	vj_hook_unregister(vn);
	mutex_unlock(&vn->lock);
}

/* Every user socket holds its namespace, so no channel is left here. */
static void __net_exit vj_pernet_exit(struct net *net)
{
	vj_proc_net_exit(net);
	vj_flow_net_exit(vj_pernet(net));
}

static struct pernet_operations vj_pernet_ops = {
	.init = vj_pernet_init,
	.pre_exit = vj_pernet_pre_exit,
	.exit = vj_pernet_exit,
	.id = &vj_net_id,
	.size = sizeof(struct vj_net),
};

static int vj_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	/*
	 * Also sent in the old namespace when a device moves away: a direct
	 * channel gives the device's queue back first, then every channel
	 * bound to the device is unhashed.
	 */
	if (event == NETDEV_UNREGISTER) {
		vj_direct_dev_gone(dev);
		vj_flow_dev_gone(vj_pernet(dev_net(dev)), dev->ifindex);
	}
	return NOTIFY_DONE;
}

static struct notifier_block vj_netdev_notifier = {
	.notifier_call = vj_netdev_event,
};

static int __init vj_init(void)
{
	int err;

	if (!pool_buffers || pool_buffers > VJ_POOL_MAX)
		return -EINVAL;
	err = vj_pool_init(pool_buffers);
	if (err)
		return err;
	vj_wake_init();
	err = register_pernet_subsys(&vj_pernet_ops);
	if (err)
		goto err_pool_exit;
	err = register_netdevice_notifier(&vj_netdev_notifier);
	if (err)
		goto err_unregister_pernet;
	err = vj_udp_init();
	if (err)
		goto err_unregister_notifier;
	err = vj_socket_init();
	if (err)
		goto err_udp_exit;
	/* Last: a kfunc set cannot be unregistered (see kernel/xdp.c). */
	err = vj_xdp_init();
	if (err)
		goto err_socket_exit;
	pr_info("loaded: %u global buffers\n", pool_buffers);
	return 0;

err_socket_exit:
	vj_socket_exit();
err_udp_exit:
	vj_udp_exit();
err_unregister_notifier:
	unregister_netdevice_notifier(&vj_netdev_notifier);
err_unregister_pernet:
	unregister_pernet_subsys(&vj_pernet_ops);
err_pool_exit:
	vj_wake_exit();
	vj_pool_exit();
	return err;
}

/*
 * No XDP program can be calling vj_xdp_deliver() here: each one holds a
 * reference on this module.  The kfunc set goes with the module's BTF.
 */
static void __exit vj_exit(void)
{
	vj_socket_exit();
	vj_udp_exit();
	unregister_netdevice_notifier(&vj_netdev_notifier);
	unregister_pernet_subsys(&vj_pernet_ops);
	vj_stack_exit();
	/* Socket destructors and kfree_rcu()s of mask lists. */
	rcu_barrier();
	vj_wake_exit();
	vj_pool_exit();
	pr_info("unloaded\n");
}

module_init(vj_init);
module_exit(vj_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Van Jacobson network channels");
MODULE_ALIAS_NETPROTO(PF_VJCHAN);
