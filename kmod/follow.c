// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: what the agent following the log needs to hold a
 * client slot for the mount (docs/format.md, "client slots"). A master
 * reuses a deleted file's memory once every live slot has replayed past
 * the delete, so while a removed file is still open or mapped here, the
 * agent must publish a position before that delete: the module remembers
 * the seq each REMOVE names until the inode is evicted (FAMFS_IOC_HELD),
 * and writes the agent's slot through DAX (FAMFS_IOC_SLOT_WRITE), which
 * a read-only mount could not do through .meta/dev0.
 */
#include <linux/dax.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "famfs_kmod.h"
#include "famfs/famfs_ioctl.h"

static_assert(sizeof(struct famfs_client_slot) == FAMFS_IOC_SLOT_BYTES);
static_assert(sizeof(struct famfs_uuid) ==
	      sizeof_field(struct famfs_ioc_held, slot_uuid));

/* A removed regular file whose inode still lives (open or mapped). */
struct famfs_removed {
	struct list_head link;
	struct inode *inode;
	u64 seq;		/* what the REMOVE named */
};

void famfs_follow_init(struct famfs_sb_info *sbi)
{
	spin_lock_init(&sbi->removed_lock);
	INIT_LIST_HEAD(&sbi->removed);
	sbi->slot = -1;
}

int famfs_removed_add(struct inode *inode, u64 seq)
{
	struct famfs_sb_info *sbi = FAMFS_SB(inode->i_sb);
	struct famfs_removed *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	r->inode = inode;
	r->seq = seq;
	spin_lock(&sbi->removed_lock);
	list_add(&r->link, &sbi->removed);
	spin_unlock(&sbi->removed_lock);
	return 0;
}

void famfs_removed_del(struct inode *inode)
{
	struct famfs_sb_info *sbi = FAMFS_SB(inode->i_sb);
	struct famfs_removed *r, *found = NULL;

	spin_lock(&sbi->removed_lock);
	list_for_each_entry(r, &sbi->removed, link)
		if (r->inode == inode) {
			list_del(&r->link);
			found = r;
			break;
		}
	spin_unlock(&sbi->removed_lock);
	kfree(found);
}

long famfs_ioc_held(struct file *dirf, void __user *arg)
{
	struct famfs_sb_info *sbi = FAMFS_SB(file_inode(dirf)->i_sb);
	struct famfs_ioc_held h = {};
	struct famfs_removed *r;

	spin_lock(&sbi->removed_lock);
	list_for_each_entry(r, &sbi->removed, link) {
		h.count++;
		if (!h.min_seq || r->seq < h.min_seq)
			h.min_seq = r->seq;
	}
	h.slot = sbi->slot;
	memcpy(h.slot_uuid, &sbi->slot_uuid, sizeof(h.slot_uuid));
	spin_unlock(&sbi->removed_lock);
	return copy_to_user(arg, &h, sizeof(h)) ? -EFAULT : 0;
}

long famfs_ioc_slot_write(struct file *dirf, void __user *arg)
{
	struct dentry *dentry = file_dentry(dirf);
	struct famfs_sb_info *sbi = FAMFS_SB(dentry->d_sb);
	struct famfs_client_slot *s;
	struct famfs_ioc_slot *req;
	long rc = -EINVAL;

	if (!IS_ROOT(dentry))
		return -EINVAL;
	req = memdup_user(arg, sizeof(*req));
	if (IS_ERR(req))
		return PTR_ERR(req);
	s = (struct famfs_client_slot *)req->slot;
	if (!req->reserved && req->index < sbi->nslots)
		rc = famfs_dax_write(sbi->dev[0], sbi->slots_offset +
				     (u64)req->index * sizeof(*s), s,
				     sizeof(*s));
	if (!rc) {
		spin_lock(&sbi->removed_lock);
		if (s->state == FAMFS_SLOT_LIVE) {
			sbi->slot = req->index;
			sbi->slot_uuid = s->host_uuid;
		} else if (sbi->slot == (int)req->index)
			sbi->slot = -1;
		spin_unlock(&sbi->removed_lock);
	}
	kfree(req);
	return rc;
}

/*
 * The log seq up to which the agent has brought the mount (every EXCHANGE
 * up to it is in the tree), so that an agent started later replays in
 * steps only from there (lib/kmount.c).
 */
long famfs_ioc_synced(struct file *dirf, unsigned int cmd, void __user *arg)
{
	struct famfs_sb_info *sbi = FAMFS_SB(file_inode(dirf)->i_sb);
	struct famfs_ioc_synced s = {};

	if (cmd == FAMFS_IOC_SYNCED_GET) {
		spin_lock(&sbi->removed_lock);
		s.seq = sbi->synced_seq;
		spin_unlock(&sbi->removed_lock);
		return copy_to_user(arg, &s, sizeof(s)) ? -EFAULT : 0;
	}
	if (copy_from_user(&s, arg, sizeof(s)))
		return -EFAULT;
	spin_lock(&sbi->removed_lock);
	sbi->synced_seq = s.seq;
	spin_unlock(&sbi->removed_lock);
	return 0;
}

/* At unmount: the slot the agent holds for this mount is free again. */
void famfs_follow_release_slot(struct super_block *sb)
{
	struct famfs_sb_info *sbi = FAMFS_SB(sb);
	struct famfs_client_slot s;
	u64 off;

	if (sbi->slot < 0 || sbi->ndev == 0)
		return;
	off = sbi->slots_offset + (u64)sbi->slot * sizeof(s);
	if (famfs_dax_read(sbi->dev[0], off, &s, sizeof(s)) ||
	    s.magic != FAMFS_SLOT_MAGIC || s.state != FAMFS_SLOT_LIVE ||
	    memcmp(&s.host_uuid, &sbi->slot_uuid, sizeof(s.host_uuid)))
		return;	/* evicted, or no longer ours */
	s.state = FAMFS_SLOT_FREE;
	famfs_dax_write(sbi->dev[0], off, &s, sizeof(s));
	sbi->slot = -1;
}
