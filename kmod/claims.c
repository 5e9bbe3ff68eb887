// SPDX-License-Identifier: GPL-2.0
/*
 * famfs kernel module: which device ranges the files of a mount use.
 *
 * fsdax lets a page belong to one file only (page->mapping), and two
 * files sharing memory would also be a corrupt log, so a map that
 * overlaps a file already in the mount is refused. Claimed ranges never
 * overlap each other, so a tree sorted by start finds a conflict in
 * O(log n) per device: the claim with the greatest start below the new end is the
 * only one that can reach into the new range. A file's claims are
 * dropped when its inode is evicted: a removed file keeps its memory
 * while it is open or mapped, and a new map over that memory is refused
 * with -EBUSY until then (the replaying agent retries it). The rest are
 * freed with the superblock. The meta file, which spans the device,
 * claims nothing.
 */
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "famfs_kmod.h"

struct famfs_claim {
	struct rb_node node;
	u64 start;
	u64 end;		/* exclusive */
	struct inode *owner;	/* alive while the claim is */
};

/* The claim with the greatest start < @end, or NULL. */
static struct famfs_claim *famfs_claim_before(struct rb_root *root, u64 end)
{
	struct rb_node *n = root->rb_node;
	struct famfs_claim *best = NULL, *c;

	while (n) {
		c = rb_entry(n, struct famfs_claim, node);
		if (c->start < end) {
			best = c;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

static void famfs_claim_insert(struct rb_root *root, struct famfs_claim *new)
{
	struct rb_node **p = &root->rb_node, *parent = NULL;
	struct famfs_claim *c;

	while (*p) {
		parent = *p;
		c = rb_entry(parent, struct famfs_claim, node);
		p = new->start < c->start ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&new->node, parent, p);
	rb_insert_color(&new->node, root);
}

/*
 * famfs_claim_map() - record the ranges of @map (already validated, so
 * its items do not overlap each other) for @owner. Returns 0, -EINVAL
 * if a range overlaps a file in the mount, -EBUSY if it overlaps only a
 * removed file still open or mapped, or -ENOMEM; on error nothing is
 * recorded.
 */
int famfs_claim_map(struct famfs_sb_info *sbi, const struct famfs_kmap *map,
		    struct inode *owner)
{
	struct famfs_claim *c[FAMFS_MAX_EXTENTS];
	unsigned int i, n = map->nitems;
	struct famfs_claim *prev;
	struct rb_root *root;
	int rc = 0;

	for (i = 0; i < n; i++) {
		c[i] = kmalloc(sizeof(*c[i]), GFP_KERNEL);
		if (!c[i]) {
			rc = -ENOMEM;
			goto out_free;
		}
		c[i]->start = map->items[i].offset;
		c[i]->end = map->items[i].offset + map->items[i].length;
		c[i]->owner = owner;
	}
	mutex_lock(&sbi->claims_lock);
	for (i = 0; i < n; i++) {
		root = &sbi->dev[map->items[i].dev_index]->claims;
		prev = famfs_claim_before(root, c[i]->end);
		if (prev && prev->end > c[i]->start) {
			/* nlink 0: removed, waiting for its last user */
			rc = prev->owner->i_nlink ? -EINVAL : -EBUSY;
			if (rc == -EINVAL)
				break;
		}
	}
	if (!rc)
		for (i = 0; i < n; i++)
			famfs_claim_insert(&sbi->dev[map->items[i].dev_index]->claims,
					   c[i]);
	mutex_unlock(&sbi->claims_lock);
	if (!rc)
		return 0;
	i = n;
out_free:
	while (i--)
		kfree(c[i]);
	return rc;
}

/*
 * famfs_unclaim_map() - drop the ranges @owner claimed for @map (nothing
 * if the claim failed: claims never overlap, so the one starting at an
 * item's offset is either @owner's or another file's).
 */
void famfs_unclaim_map(struct famfs_sb_info *sbi, const struct famfs_kmap *map,
		       struct inode *owner)
{
	struct famfs_claim *c;
	struct rb_root *root;
	unsigned int i;

	mutex_lock(&sbi->claims_lock);
	for (i = 0; i < map->nitems; i++) {
		root = &sbi->dev[map->items[i].dev_index]->claims;
		c = famfs_claim_before(root, map->items[i].offset + 1);
		if (c && c->start == map->items[i].offset && c->owner == owner) {
			rb_erase(&c->node, root);
			kfree(c);
		}
	}
	mutex_unlock(&sbi->claims_lock);
}

void famfs_free_claims(struct famfs_sb_info *sbi)
{
	struct famfs_claim *c, *next;
	unsigned int i;

	for (i = 0; i < FAMFS_KMOD_MAX_DEVICES; i++) {
		if (!sbi->dev[i])
			continue;
		rbtree_postorder_for_each_entry_safe(c, next,
						     &sbi->dev[i]->claims, node)
			kfree(c);
		sbi->dev[i]->claims = RB_ROOT;
	}
}
