// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet: a virtio-net driver whose receive buffers are vjchan global
 * buffers (vjchan_driver.h), so frames of bound channels reach them without
 * the stack, and all other frames reach the stack without a copy.
 *
 * It never binds on its own.  The module has no MODULE_DEVICE_TABLE, so
 * udev never loads it, and probe() refuses (-ENODEV) every virtio device
 * not named in the writable parameter "claim" (e.g. "virtio2").  A device
 * moves from virtio_net to vjnet with tools/vjchan-ctl attach IFACE:
 *   echo virtio2 >/sys/module/vjnet/parameters/claim
 *   echo virtio2 >/sys/bus/virtio/drivers/virtio_net/unbind
 *   echo virtio2 >/sys/bus/virtio/drivers/vjnet/bind
 * and back with vjchan-ctl detach IFACE (unbind from vjnet, bind to
 * virtio_net).  A move creates a new interface: addresses must be added
 * again.
 */

#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/virtio.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_net.h>

#include "vjnet.h"

static char claim[64];

module_param_string(claim, claim, sizeof(claim), 0644);
MODULE_PARM_DESC(claim, "virtio device (e.g. virtio2) that probe may take");

static bool vjnet_fail_reinit;
module_param_named(fail_reinit, vjnet_fail_reinit, bool, 0644);
MODULE_PARM_DESC(fail_reinit, "test: fail the next device reset, leaving it broken");

/*
 * Fill every receive queue and start every pair's NAPI, also of pairs not
 * in use (ethtool -L): the device fills none of their buffers until they
 * are.
 */
static void vjnet_up(struct vjnet_priv *vi)
{
	unsigned int i;

	for (i = 0; i < vi->max_pairs; i++) {
		struct vjnet_queue *q = &vi->q[i];

		if (!vjnet_rx_fill(q, GFP_KERNEL))
			schedule_delayed_work(&q->refill, 0);
		/* Before NAPI runs: the queue is the poll's once it may. */
		virtqueue_enable_cb(q->rvq);
		napi_enable(&q->napi);
		local_bh_disable();
		napi_schedule(&q->napi);
		local_bh_enable();
	}
}

/* Stop every pair's NAPI and refill work. */
static void vjnet_down(struct vjnet_priv *vi)
{
	unsigned int i;

	for (i = 0; i < vi->max_pairs; i++) {
		struct vjnet_queue *q = &vi->q[i];

		cancel_delayed_work_sync(&q->refill);
		napi_disable(&q->napi);
		/* A refill scheduled by the last poll. */
		cancel_delayed_work_sync(&q->refill);
	}
}

/* Device reset: every buffer back to its owner, every skb freed. */
static void vjnet_free_unused(struct vjnet_priv *vi)
{
	unsigned int i;

	for (i = 0; i < vi->max_pairs; i++) {
		vjnet_rx_free_unused(&vi->q[i]);
		vjnet_tx_free_unused(&vi->q[i]);
		vi->q[i].direct = NULL;
	}
}

static int vjnet_open(struct net_device *dev)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	/* A device that did not come back from vjnet_reinit(). */
	if (vi->broken)
		return -EIO;
	vjnet_up(vi);
	netif_tx_start_all_queues(dev);
	return 0;
}

static int vjnet_stop(struct net_device *dev)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	netif_tx_disable(dev);
	/* vjnet_reinit() stopped NAPI of a broken device already. */
	if (vi->broken)
		return 0;
	vjnet_down(vi);
	return 0;
}

static const struct net_device_ops vjnet_netdev_ops = {
	.ndo_open = vjnet_open,
	.ndo_stop = vjnet_stop,
	.ndo_start_xmit = vjnet_start_xmit,
	.ndo_get_stats64 = vjnet_get_stats64,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_features = vjnet_set_features,
	.ndo_set_mac_address = eth_mac_addr,
};

static void vjnet_update_carrier(struct vjnet_priv *vi)
{
	u16 status = VIRTIO_NET_S_LINK_UP;

	if (virtio_has_feature(vi->vdev, VIRTIO_NET_F_STATUS))
		virtio_cread(vi->vdev, struct virtio_net_config, status,
			     &status);
	if (status & VIRTIO_NET_S_LINK_UP)
		netif_carrier_on(vi->dev);
	else
		netif_carrier_off(vi->dev);
}

static void vjnet_config_work(struct work_struct *work)
{
	struct vjnet_priv *vi = container_of(work, struct vjnet_priv,
					     config_work);

	vjnet_update_carrier(vi);
}

static void vjnet_config_changed(struct virtio_device *vdev)
{
	struct vjnet_priv *vi = vdev->priv;

	schedule_work(&vi->config_work);
}

/*
 * The device's queues: a receive and a transmit queue per pair it has
 * (vi->dev_pairs; vjnet uses the first vi->max_pairs), then the control
 * queue if negotiated.
 */
static int vjnet_find_vqs(struct vjnet_priv *vi)
{
	unsigned int i, n = 2 * vi->dev_pairs + !!vi->has_cvq;
	struct virtqueue_info *info;
	struct virtqueue **vqs;
	int err = -ENOMEM;

	info = kcalloc(n, sizeof(*info), GFP_KERNEL);
	vqs = kcalloc(n, sizeof(*vqs), GFP_KERNEL);
	if (!info || !vqs)
		goto out_free;
	for (i = 0; i < vi->max_pairs; i++) {
		info[2 * i].name = vi->q[i].rx_name;
		info[2 * i].callback = vjnet_rx_done;
		info[2 * i + 1].name = vi->q[i].tx_name;
		info[2 * i + 1].callback = vjnet_tx_done;
	}
	/*
	 * Pairs past those vjnet drives are made but never used: an unnamed
	 * entry would be skipped and move the control queue off its index.
	 */
	for (i = 2 * vi->max_pairs; i < 2 * vi->dev_pairs; i++)
		info[i].name = "unused";
	if (vi->has_cvq)
		info[n - 1].name = "control";
	err = virtio_find_vqs(vi->vdev, n, vqs, info, NULL);
	if (err)
		goto out_free;
	for (i = 0; i < vi->max_pairs; i++) {
		vi->q[i].rvq = vqs[2 * i];
		vi->q[i].svq = vqs[2 * i + 1];
	}
	vi->cvq = vi->has_cvq ? vqs[n - 1] : NULL;
out_free:
	kfree(vqs);
	kfree(info);
	return err;
}

/**
 * vjnet_reinit - reset the device whole and bring it back
 * @vi: the device
 *
 * For when the receive queue alone could not be reset (a failed direct
 * detach): NAPI and transmit stop, the device is reset, every buffer still
 * posted goes back to its owner (the direct channel whose queue it is, or
 * the pool) and every skb not yet sent is freed; then the features are
 * negotiated and the queues made again, as at probe, the pairs in use set
 * again (steered for no direct channel), every receive queue is filled
 * from the global pool, and NAPI and transmit run again.  If the device
 * does not come back, it is marked broken: it stays down, with nothing
 * posted, until vjnet is unbound from it.
 * Context: rtnl_lock held.  Return: 0 or the error.
 */
static int vjnet_reinit(struct vjnet_priv *vi)
{
	struct virtio_device *vdev = vi->vdev;
	struct net_device *dev = vi->dev;
	bool running = netif_running(dev);
	int err;

	ASSERT_RTNL();
	/* No start_xmit in flight once the queues are stopped. */
	netif_tx_lock_bh(dev);
	netif_device_detach(dev);
	netif_tx_unlock_bh(dev);
	if (running)
		vjnet_down(vi);
	virtio_reset_device(vdev);
	vjnet_free_unused(vi);
	vdev->config->del_vqs(vdev);

	virtio_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	virtio_add_status(vdev, VIRTIO_CONFIG_S_DRIVER);
	if (READ_ONCE(vjnet_fail_reinit)) {	/* test hook */
		WRITE_ONCE(vjnet_fail_reinit, false);
		err = -EIO;
		goto err_broken;
	}
	err = vdev->config->finalize_features(vdev);
	if (err)
		goto err_broken;
	virtio_add_status(vdev, VIRTIO_CONFIG_S_FEATURES_OK);
	if (!(vdev->config->get_status(vdev) & VIRTIO_CONFIG_S_FEATURES_OK)) {
		err = -ENODEV;
		goto err_broken;
	}
	err = vjnet_find_vqs(vi);
	if (err)
		goto err_broken;
	virtio_device_ready(vdev);
	if (vjnet_steer(vi, vi->pairs, NULL)) {
		/* After a reset the device uses one pair. */
		netdev_err(dev, "%u queue pairs refused, using 1\n", vi->pairs);
		WRITE_ONCE(vi->pairs, 1);
		netif_set_real_num_queues(dev, 1, 1);
	}
	if (running)
		vjnet_up(vi);
	netif_device_attach(dev);
	vjnet_update_carrier(vi);
	return 0;

err_broken:
	virtio_add_status(vdev, VIRTIO_CONFIG_S_FAILED);
	vi->broken = true;
	netif_carrier_off(dev);
	return err;
}

/*
 * Take back what @q posted of the channel that owns it and return it to
 * global buffers; if the queue cannot be reset alone, reset the device.
 */
static void vjnet_direct_release(struct vjnet_priv *vi, struct vjnet_queue *q)
{
	int err;

	if (!vjnet_rx_switch(q, NULL))
		return;
	/*
	 * The channel's buffers must not stay with the device: reset it
	 * whole, which gives them back, and bring it up again on global
	 * buffers.
	 */
	netdev_err(vi->dev, "receive queue reset failed, resetting the device\n");
	err = vjnet_reinit(vi);
	if (err)
		netdev_err(vi->dev, "device reset failed (%d): down until unbound\n",
			   err);
}

/*
 * A channel binds direct: it gets the last queue in use, the only one of a
 * device with one pair in use; with more, the device must steer the
 * channel's flow there (ctrl.c), and every other queue keeps serving the
 * stack.
 */
static int vjnet_direct_attach(struct net_device *dev, struct vj_direct *d)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	struct vjnet_queue *q;
	struct vj_direct_flow f;
	int err;

	if (!virtio_has_feature(vi->vdev, VIRTIO_F_RING_RESET))
		return -EOPNOTSUPP;
	/* No queues, NAPI disabled: vjnet_reinit() failed. */
	if (vi->broken)
		return -EIO;
	if (vi->pairs > 1 && (!vi->has_rss || vj_direct_flow(d, &f)))
		return -EOPNOTSUPP;
	/* One frame per buffer from here on. */
	err = vjnet_set_guest_tso(vi, false);
	if (err)
		return err;
	q = &vi->q[vi->pairs - 1];
	err = vjnet_rx_switch(q, d);
	if (err)
		goto err_tso;
	if (vi->pairs == 1)
		return 0;
	err = vjnet_steer(vi, vi->pairs, d);
	if (err)
		goto err_release;
	return 0;

err_release:
	vjnet_direct_release(vi, q);
err_tso:
	if (vjnet_tso_wanted(vi))
		netdev_err(dev, "receive segmentation offload stays off\n");
	return err;
}

static void vjnet_direct_detach(struct net_device *dev, struct vj_direct *d)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	unsigned int i;
	int err;

	for (i = 0; i < vi->max_pairs; i++) {
		if (vi->q[i].direct != d)
			continue;
		/* Steer the queue's share of flows back to it first. */
		if (vi->pairs > 1) {
			err = vjnet_steer(vi, vi->pairs, NULL);
			if (err)
				netdev_err(dev, "steering back refused (%d)\n",
					   err);
		}
		vjnet_direct_release(vi, &vi->q[i]);
		if (!vi->broken && vjnet_tso_wanted(vi))
			netdev_err(dev, "receive segmentation offload stays off\n");
		return;
	}
}

static const struct vj_direct_ops vjnet_direct_ops = {
	.attach = vjnet_direct_attach,
	.detach = vjnet_direct_detach,
};

/* The pairs' state, before the queues are found. */
static int vjnet_queues_init(struct vjnet_priv *vi)
{
	unsigned int i;

	vi->q = kcalloc(vi->max_pairs, sizeof(*vi->q), GFP_KERNEL);
	if (!vi->q)
		return -ENOMEM;
	for (i = 0; i < vi->max_pairs; i++) {
		struct vjnet_queue *q = &vi->q[i];

		q->vi = vi;
		q->index = i;
		snprintf(q->rx_name, sizeof(q->rx_name), "input.%u", i);
		snprintf(q->tx_name, sizeof(q->tx_name), "output.%u", i);
		u64_stats_init(&q->rx_stats.syncp);
		u64_stats_init(&q->tx_stats.syncp);
		INIT_DELAYED_WORK(&q->refill, vjnet_refill_work);
		netif_napi_add(vi->dev, &q->napi, vjnet_poll);
	}
	return 0;
}

static void vjnet_queues_free(struct vjnet_priv *vi)
{
	unsigned int i;

	for (i = 0; vi->q && i < vi->max_pairs; i++)
		netif_napi_del(&vi->q[i].napi);
	kfree(vi->q);
	kfree(vi->ctrl);
}

/* One pair per CPU, at most as many as vjnet drives (vjnet_ctrl_init()). */
static int vjnet_pairs_init(struct vjnet_priv *vi)
{
	u16 pairs = min_t(u16, vi->max_pairs, num_online_cpus());
	int err;

	err = vjnet_steer(vi, pairs, NULL);
	if (err) {
		netdev_warn(vi->dev, "%u queue pairs refused (%d), using 1\n",
			    pairs, err);
		pairs = 1;
	}
	WRITE_ONCE(vi->pairs, pairs);
	return netif_set_real_num_queues(vi->dev, pairs, pairs);
}

static int vjnet_probe(struct virtio_device *vdev)
{
	struct net_device *dev;
	struct vjnet_priv *vi;
	u8 addr[ETH_ALEN];
	int err;

	if (!sysfs_streq(claim, dev_name(&vdev->dev)))
		return -ENODEV;
	if (!virtio_has_feature(vdev, VIRTIO_F_VERSION_1))
		return -ENODEV;

	dev = alloc_etherdev_mqs(sizeof(*vi), VJNET_MAX_PAIRS, VJNET_MAX_PAIRS);
	if (!dev)
		return -ENOMEM;
	SET_NETDEV_DEV(dev, &vdev->dev);
	dev->netdev_ops = &vjnet_netdev_ops;
	dev->ethtool_ops = &vjnet_ethtool_ops;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_DATA_LEN;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	/*
	 * Transmit offloads (tx.c): the device sums and segments.  The
	 * stack sends scattered skbs only with a checksum offload.
	 */
	if (virtio_has_feature(vdev, VIRTIO_NET_F_CSUM)) {
		dev->hw_features |= NETIF_F_HW_CSUM | NETIF_F_SG;
		if (virtio_has_feature(vdev, VIRTIO_NET_F_HOST_TSO4))
			dev->hw_features |= NETIF_F_TSO;
		if (virtio_has_feature(vdev, VIRTIO_NET_F_HOST_TSO6))
			dev->hw_features |= NETIF_F_TSO6;
	}
	dev->features |= dev->hw_features;
	/*
	 * Receive checksum offload (rx.c): the device's verdict or a
	 * checksum left to complete, in each frame's header.  Fixed: without
	 * VIRTIO_NET_F_CTRL_GUEST_OFFLOADS it cannot be turned off.
	 */
	if (virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_CSUM))
		dev->features |= NETIF_F_RXCSUM;
	/*
	 * Receive segmentation offload: frames the stack can resegment; off
	 * with ethtool -K rx-gro-hw (and by the core for generic XDP).
	 */
	if (virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO4) ||
	    virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO6)) {
		dev->hw_features |= NETIF_F_GRO_HW;
		dev->features |= NETIF_F_GRO_HW;
	}

	vi = netdev_priv(dev);
	vi->vdev = vdev;
	vi->dev = dev;
	vi->pairs = 1;
	vi->mergeable = virtio_has_feature(vdev, VIRTIO_NET_F_MRG_RXBUF);
	vi->guest_tso = virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO4) ||
			virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO6);
	vdev->priv = vi;
	INIT_WORK(&vi->config_work, vjnet_config_work);
	err = vjnet_ctrl_init(vi);
	if (err)
		goto err_free_netdev;
	err = vjnet_queues_init(vi);
	if (err)
		goto err_free_queues;

	if (virtio_has_feature(vdev, VIRTIO_NET_F_MAC)) {
		virtio_cread_bytes(vdev, offsetof(struct virtio_net_config, mac),
				   addr, ETH_ALEN);
		eth_hw_addr_set(dev, addr);
	} else {
		eth_hw_addr_random(dev);
	}

	err = vjnet_find_vqs(vi);
	if (err)
		goto err_free_queues;
	virtio_device_ready(vdev);

	rtnl_lock();
	err = vjnet_pairs_init(vi);
	if (!err)
		err = vj_direct_register(dev, &vjnet_direct_ops);
	rtnl_unlock();
	if (err)
		goto err_reset;
	err = register_netdev(dev);
	if (err)
		goto err_direct;
	vjnet_update_carrier(vi);
	netdev_info(dev, "vjnet on %s, %pM, %u of %u queue pairs%s\n",
		    dev_name(&vdev->dev), dev->dev_addr, vi->pairs,
		    vi->max_pairs, vi->has_rss ? ", RSS" : "");
	return 0;

err_direct:
	rtnl_lock();
	vj_direct_unregister(dev);
	rtnl_unlock();
err_reset:
	virtio_reset_device(vdev);
	vdev->config->del_vqs(vdev);
err_free_queues:
	vjnet_queues_free(vi);
err_free_netdev:
	free_netdev(dev);
	return err;
}

static void vjnet_remove(struct virtio_device *vdev)
{
	struct vjnet_priv *vi = vdev->priv;
	struct net_device *dev = vi->dev;

	/* The virtio core calls no config_changed() any more. */
	cancel_work_sync(&vi->config_work);
	/* A direct channel's buffers come back before the device goes. */
	rtnl_lock();
	vj_direct_unregister(dev);
	rtnl_unlock();
	unregister_netdev(dev);
	virtio_reset_device(vdev);
	/* A broken device has no queues (vjnet_reinit()). */
	if (!vi->broken) {
		vjnet_free_unused(vi);
		vdev->config->del_vqs(vdev);
	}
	vjnet_queues_free(vi);
	free_netdev(dev);
}

static const struct virtio_device_id vjnet_id_table[] = {
	{ VIRTIO_ID_NET, VIRTIO_DEV_ANY_ID },
	{ 0 },
};

static const unsigned int vjnet_features[] = {
	VIRTIO_NET_F_CSUM,
	VIRTIO_NET_F_GUEST_CSUM,
	VIRTIO_NET_F_GUEST_TSO4,
	VIRTIO_NET_F_GUEST_TSO6,
	VIRTIO_NET_F_MRG_RXBUF,
	VIRTIO_NET_F_CTRL_GUEST_OFFLOADS,
	VIRTIO_NET_F_HOST_TSO4,
	VIRTIO_NET_F_HOST_TSO6,
	VIRTIO_NET_F_MAC,
	VIRTIO_NET_F_STATUS,
	VIRTIO_NET_F_CTRL_VQ,
	VIRTIO_NET_F_MQ,
	VIRTIO_NET_F_RSS,
};

/*
 * Receive segmentation offload only with what it needs: mergeable buffers
 * (a 64 KiB frame in 2 KiB buffers), the checksum offload it implies, and
 * the control command that turns it off while a direct channel binds (the
 * channel's buffers take one frame each).
 */
static int vjnet_validate(struct virtio_device *vdev)
{
	if (!virtio_has_feature(vdev, VIRTIO_NET_F_MRG_RXBUF) ||
	    !virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_CSUM) ||
	    !virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ) ||
	    !virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_GUEST_OFFLOADS)) {
		__virtio_clear_bit(vdev, VIRTIO_NET_F_GUEST_TSO4);
		__virtio_clear_bit(vdev, VIRTIO_NET_F_GUEST_TSO6);
	}
	return 0;
}

/* No MODULE_DEVICE_TABLE(virtio, ...): udev must never load vjnet. */
static struct virtio_driver vjnet_driver = {
	.driver.name = KBUILD_MODNAME,
	.id_table = vjnet_id_table,
	.feature_table = vjnet_features,
	.feature_table_size = ARRAY_SIZE(vjnet_features),
	.validate = vjnet_validate,
	.probe = vjnet_probe,
	.remove = vjnet_remove,
	.config_changed = vjnet_config_changed,
};

module_virtio_driver(vjnet_driver);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("virtio-net driver receiving into vjchan buffers");
