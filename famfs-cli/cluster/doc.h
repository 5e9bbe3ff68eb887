/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A YAML document as a tree of nodes that remember where they came from
 * (line:column), loaded with libyaml. Plain scalars are resolved the way
 * PyYAML's SafeLoader resolves them (YAML 1.1: yes/no are booleans, 0x1f
 * and 1_000 are integers, 2026-01-02 is a timestamp), because the schema
 * test validates the same files with python3-yaml + jsonschema and the two
 * must agree on what every scalar is.
 *
 * Aliases share the anchored node (the tree is a DAG); the loader refuses
 * a document whose expansion would exceed YDOC_MAX_EXPANDED nodes, so an
 * alias bomb costs nothing. Merge keys (<<) are expanded at load time.
 */
#ifndef FAMFS_CLI_CLUSTER_DOC_H
#define FAMFS_CLI_CLUSTER_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define YDOC_MAX_EXPANDED 100000u /* nodes after alias expansion */
#define YDOC_MAX_DEPTH 64u

enum ynode_kind { YN_SCALAR, YN_MAP, YN_SEQ };

/* What a scalar is after tag resolution. */
enum yscalar { YS_STR, YS_INT, YS_FLOAT, YS_BOOL, YS_NULL, YS_OTHER };

struct ymark {
	unsigned line, col; /* 1-based */
};

struct ynode {
	enum ynode_kind kind;
	struct ymark mark;
	/* scalar */
	char *str;     /* NUL-terminated; may contain NULs ("\0") */
	size_t len;
	enum yscalar type;
	bool bval;
	bool neg;       /* YS_INT (and integral YS_FLOAT): sign */
	bool overflow;  /* magnitude does not fit in 64 bits */
	uint64_t mag;   /* magnitude of an integer or integral float */
	bool integral;  /* YS_FLOAT with no fractional part (JSON "integer") */
	/* map (keys[i] -> vals[i]) or seq (vals[i]) */
	size_t n, cap;
	struct ynode **keys;
	struct ynode **vals;
	uint64_t expanded;  /* nodes in this subtree with aliases expanded */
	struct ynode *next_alloc;
};

struct ydoc {
	char *file;
	struct ynode *root;   /* NULL: empty document */
	struct ynode *nodes;  /* every node, for freeing */
};

/*
 * ydoc_load() - parse @file into a new document (*@out, freed with
 * ydoc_free()). Returns 0, or -1 with a message in @err and its position
 * in @err_mark (0:0 when unknown) for a syntax error, an I/O error, several
 * documents, an unknown tag, an undefined alias, too deep nesting or too
 * large an alias expansion. @file "-" is the standard input.
 */
int ydoc_load(const char *file, struct ydoc **out, struct ymark *err_mark,
	      char *err, size_t errlen);
/* Same, from a buffer; @name is used in messages only. */
int ydoc_load_buffer(const char *name, const char *buf, size_t len,
		     struct ydoc **out, struct ymark *err_mark, char *err,
		     size_t errlen);
void ydoc_free(struct ydoc *d);
/* @file as messages name it: "<stdin>" for "-". */
static inline const char *ydoc_file_name(const char *file)
{
	return file[0] == '-' && !file[1] ? "<stdin>" : file;
}

/* The value of @key in mapping @map, or NULL (last one wins, as PyYAML). */
struct ynode *ynode_get(const struct ynode *map, const char *key);
/* A human name for what a node is: "a string", "a mapping", ... */
const char *ynode_describe(const struct ynode *n);

#endif
