// SPDX-License-Identifier: Apache-2.0
/*
 * The client slot table in shared memory: every client publishes how far
 * it has replayed, so the master reuses a deleted file's space only after
 * every live client is past the tombstone (docs/format.md, "Space reuse").
 * Each slot is written only by its owner, except that an operator may
 * evict a client that is gone for good.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static struct famfs_client_slot *slot_at(struct famfs_fs *fs, unsigned i)
{
	uint8_t *base = fs->slots_rw ? fs->slots_rw : fs->dev[0]->base;

	return (struct famfs_client_slot *)(base + fs->sb.slots_offset) + i;
}

/*
 * A client maps its devices read-only, except the first unit of device 0
 * where the slot table lives: publishing its position is its one write.
 * (A whole unit, because devdax maps only at its alignment.)
 */
static int map_slots_writable(struct famfs_fs *fs, struct famfs_err *e)
{
	int fd;
	void *p;

	if (fs->dev[0]->writable)
		return 0;
	fd = open(fs->dev[0]->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return famfs_set_err(e, -errno,
			"%s: a client needs write access to the slot table: %s",
			fs->dev[0]->path, strerror(errno));
	p = mmap(NULL, FAMFS_UNIT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return famfs_set_err(e, -errno, "%s: cannot map the slot table",
				     fs->dev[0]->path);
	fs->slots_rw = p;
	return 0;
}

static void slot_flush_ptr(struct famfs_fs *fs, const void *p, uint64_t len)
{
	famfs_dev_flush_range(fs->dev[0], p, len);
}

static void slot_flush(struct famfs_fs *fs, unsigned i)
{
	slot_flush_ptr(fs, slot_at(fs, i), sizeof(struct famfs_client_slot));
}

static void slot_invalidate(struct famfs_fs *fs)
{
	famfs_dev_invalidate(fs->dev[0], fs->sb.slots_offset,
			     fs->sb.nslots * sizeof(struct famfs_client_slot));
}

/* What this client may safely claim to have replayed: not past a delete of
 * a file it still holds open.
 */
static uint64_t safe_position(struct famfs_fs *fs)
{
	uint64_t pos = fs->last_seq < fs->publish_cap ? fs->last_seq :
		       fs->publish_cap;

	for (struct famfs_node *z = fs->zombies; z; z = z->zombie_next)
		if (z->holds && z->delete_seq && z->delete_seq - 1 < pos)
			pos = z->delete_seq - 1;
	return pos;
}

/*
 * Write slot @i as @src: through the owner's hook (a kernel mount's
 * follower writes with FAMFS_IOC_SLOT_WRITE), else in place with the
 * state stored last, then flushed.
 */
static void slot_write(struct famfs_fs *fs, unsigned i,
		       const struct famfs_client_slot *src)
{
	struct famfs_client_slot *s = slot_at(fs, i);

	if (fs->slot_store) {
		fs->slot_store(fs->slot_store_arg, i, src);
		return;
	}
	memcpy(&s->host_uuid, &src->host_uuid,
	       sizeof(*s) - offsetof(struct famfs_client_slot, host_uuid));
	s->magic = src->magic;
	__atomic_store_n(&s->state, src->state, __ATOMIC_RELEASE);
	slot_flush(fs, i);
}

int famfs_slot_claim(struct famfs_fs *fs, struct famfs_err *e)
{
	int r = fs->slot_store ? 0 : map_slots_writable(fs, e);

	if (r)
		return r;
	famfs_uuid_generate(&fs->session_uuid);
	/* Two hosts may race for one free slot: write, flush, re-read after a
	 * pause, and move on if another claim won.
	 */
	for (unsigned attempt = 0; attempt < 4; attempt++) {
		slot_invalidate(fs);
		for (unsigned i = 0; i < fs->sb.nslots; i++) {
			struct famfs_client_slot *s = slot_at(fs, i);
			struct timespec pause = { 0, 200000 };

			struct famfs_client_slot mine = {
				.magic = FAMFS_SLOT_MAGIC,
				.state = FAMFS_SLOT_LIVE,
				.host_uuid = fs->session_uuid,
				.replayed_seq = safe_position(fs),
				.heartbeat_ns = famfs_now_ns(),
			};

			if (s->magic == FAMFS_SLOT_MAGIC && s->state == FAMFS_SLOT_LIVE)
				continue;
			memcpy(mine.host_name, fs->host_name,
			       strnlen(fs->host_name, sizeof(mine.host_name)));
			slot_write(fs, i, &mine);
			nanosleep(&pause, NULL);
			famfs_dev_invalidate(fs->dev[0], fs->sb.slots_offset +
					     i * sizeof(*s), sizeof(*s));
			if (!memcmp(&s->host_uuid, &fs->session_uuid, 16)) {
				fs->slot = (int)i;
				fs->published_seq = s->replayed_seq;
				return 0;
			}
		}
	}
	return famfs_set_err(e, -EBUSY,
		"all %u client slots are taken; evict clients that are gone "
		"('famfs-cli clients --evict N') or mkfs with more slots",
		fs->sb.nslots);
}

/* Give the slot back (if any) and drop the writable slot map. */
void famfs_slot_release(struct famfs_fs *fs)
{
	if (fs->slot >= 0) {
		struct famfs_client_slot *s = slot_at(fs, (unsigned)fs->slot);

		famfs_dev_invalidate(fs->dev[0], fs->sb.slots_offset +
				     (unsigned)fs->slot * sizeof(*s),
				     sizeof(*s));
		if (!memcmp(&s->host_uuid, &fs->session_uuid, 16)) {
			struct famfs_client_slot mine = *s;

			mine.state = FAMFS_SLOT_FREE;
			slot_write(fs, (unsigned)fs->slot, &mine);
		}
		fs->slot = -1;
	}
	if (fs->slots_rw)
		munmap(fs->slots_rw, FAMFS_UNIT_SIZE);
	fs->slots_rw = NULL;
}

/* Called after each replay: cheap unless the position moved or a second
 * passed (the heartbeat tells operators which clients are alive).
 */
void famfs_slot_publish(struct famfs_fs *fs)
{
	struct famfs_client_slot *s = slot_at(fs, (unsigned)fs->slot);
	uint64_t pos = safe_position(fs), now = famfs_now_ns();

	if (pos == fs->published_seq && now - fs->published_ns < 1000000000ULL)
		return;
	struct famfs_client_slot mine;

	famfs_dev_invalidate(fs->dev[0], fs->sb.slots_offset +
			     (unsigned)fs->slot * sizeof(*s), sizeof(*s));
	if (memcmp(&s->host_uuid, &fs->session_uuid, 16) ||
	    s->state != FAMFS_SLOT_LIVE)
		return; /* evicted: stay out of the master's way */
	mine = *s;
	mine.replayed_seq = pos;
	mine.heartbeat_ns = now;
	slot_write(fs, (unsigned)fs->slot, &mine);
	fs->published_seq = pos;
	fs->published_ns = now;
}

int famfs_slot_adopt(struct famfs_fs *fs, unsigned index,
		     const struct famfs_uuid *owner)
{
	struct famfs_client_slot *s;

	if (index >= fs->sb.nslots)
		return -ENOENT;
	s = slot_at(fs, index);
	famfs_dev_invalidate(fs->dev[0], fs->sb.slots_offset +
			     index * sizeof(*s), sizeof(*s));
	if (s->magic != FAMFS_SLOT_MAGIC || s->state != FAMFS_SLOT_LIVE ||
	    memcmp(&s->host_uuid, owner, sizeof(*owner)))
		return -ENOENT;
	fs->session_uuid = *owner;
	fs->slot = (int)index;
	fs->published_seq = s->replayed_seq;
	return 0;
}

/*
 * The slot table as the memory holds it now, for a reader of other
 * hosts' slots. A pmem block device is mapped through its page cache,
 * which never sees what other hosts (or a kernel mount's DAX writes on
 * this one) put there: read it with O_DIRECT into *@bounce (freed by the
 * caller). Otherwise, or if that fails, the mapping after invalidating.
 */
static const struct famfs_client_slot *slots_now(struct famfs_fs *fs,
						 void **bounce)
{
	size_t len = ((size_t)fs->sb.nslots * sizeof(struct famfs_client_slot) +
		      4095) & ~(size_t)4095;
	int fd = -1;

	*bounce = NULL;
	if (fs->dev[0]->kind == FAMFS_DEV_BLOCK && fs->sb.slots_offset % 4096 == 0)
		fd = open(fs->dev[0]->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd >= 0 && !posix_memalign(bounce, 4096, len) &&
	    pread(fd, *bounce, len, (off_t)fs->sb.slots_offset) == (ssize_t)len) {
		close(fd);
		return *bounce;
	}
	if (fd >= 0)
		close(fd);
	free(*bounce);
	*bounce = NULL;
	slot_invalidate(fs);
	return slot_at(fs, 0);
}

uint64_t famfs_slots_min_live(struct famfs_fs *fs, bool *any)
{
	uint64_t min = UINT64_MAX;
	void *bounce;
	const struct famfs_client_slot *table = slots_now(fs, &bounce);

	*any = false;
	for (unsigned i = 0; i < fs->sb.nslots; i++) {
		const struct famfs_client_slot *s = &table[i];

		if (s->magic != FAMFS_SLOT_MAGIC || s->state != FAMFS_SLOT_LIVE)
			continue;
		*any = true;
		if (s->replayed_seq < min)
			min = s->replayed_seq;
	}
	free(bounce);
	return min;
}

FAMFS_EXPORT int famfs_slots(struct famfs_fs *fs, struct famfs_slot_info *out,
			     int max)
{
	int n = 0;
	void *bounce;
	const struct famfs_client_slot *table = slots_now(fs, &bounce);

	for (unsigned i = 0; i < fs->sb.nslots && n < max; i++) {
		const struct famfs_client_slot *s = &table[i];

		if (s->magic != FAMFS_SLOT_MAGIC || s->state == FAMFS_SLOT_FREE)
			continue;
		out[n].index = i;
		out[n].state = s->state;
		memcpy(out[n].host_name, s->host_name, sizeof(s->host_name));
		out[n].host_name[24] = '\0';
		out[n].replayed_seq = s->replayed_seq;
		out[n].heartbeat_ns = s->heartbeat_ns;
		n++;
	}
	free(bounce);
	return n;
}

/*
 * Evict on a pmem block device: its mapping goes through the page cache,
 * and writing back the page would put stale copies of the 63 other slots
 * in it over what other hosts (DAX) wrote since. Read the one 4 KiB block
 * with O_DIRECT, change the one slot, write the block back with O_DIRECT.
 * A neighbour's update landing between the two is lost: positions and
 * heartbeats only move forward, so that delays reuse until its next
 * publish; a claim re-reads its slot and moves on.
 */
/* Mark the slot at @at in the 4 KiB block @blk of @path evicted, reading
 * and writing the block through @fd into @buf.
 */
static int evict_in_block(int fd, void *buf, uint64_t blk, uint64_t at,
			  uint32_t index, const char *path,
			  struct famfs_err *e)
{
	struct famfs_client_slot *s;

	if (pread(fd, buf, 4096, (off_t)blk) != 4096)
		return famfs_set_err(e, -EIO, "%s: cannot read the slot table",
				     path);
	s = (struct famfs_client_slot *)((char *)buf + at);
	if (s->magic != FAMFS_SLOT_MAGIC || s->state != FAMFS_SLOT_LIVE)
		return famfs_set_err(e, -ENOENT, "slot %u holds no live client",
				     index);
	s->state = FAMFS_SLOT_EVICTED;
	if (pwrite(fd, buf, 4096, (off_t)blk) != 4096)
		return famfs_set_err(e, -EIO, "%s: cannot write the slot table",
				     path);
	return 0;
}

static int evict_direct(struct famfs_fs *fs, uint32_t index,
			struct famfs_err *e)
{
	const char *path = fs->dev[0]->path;
	uint64_t off = fs->sb.slots_offset +
		       (uint64_t)index * sizeof(struct famfs_client_slot);
	uint64_t blk = off & ~4095ULL;
	_cleanup_free_ void *buf = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	fd = open(path, O_RDWR | O_DIRECT | O_DSYNC | O_CLOEXEC);
	if (fd < 0)
		return famfs_set_err(e, -errno, "%s: %s", path, strerror(errno));
	if (posix_memalign(&buf, 4096, 4096))
		return famfs_set_err(e, -ENOMEM, "out of memory");
	r = evict_in_block(fd, buf, blk, off - blk, index, path, e);
	slot_invalidate(fs);
	return r;
}

FAMFS_EXPORT int famfs_slot_evict(struct famfs_fs *fs, uint32_t index,
				  struct famfs_err *e)
{
	struct famfs_client_slot *s;

	if (!fs->dev[0]->writable)
		return famfs_set_err(e, -EROFS, "evicting needs the devices writable");
	if (index >= fs->sb.nslots)
		return famfs_set_err(e, -EINVAL, "slot %u does not exist (%u slots)",
				     index, fs->sb.nslots);
	if (fs->dev[0]->kind == FAMFS_DEV_BLOCK && fs->sb.slots_offset % 4096 == 0)
		return evict_direct(fs, index, e);
	s = slot_at(fs, index);
	if (s->magic != FAMFS_SLOT_MAGIC || s->state != FAMFS_SLOT_LIVE)
		return famfs_set_err(e, -ENOENT, "slot %u holds no live client", index);
	s->state = FAMFS_SLOT_EVICTED;
	slot_flush(fs, index);
	return 0;
}
