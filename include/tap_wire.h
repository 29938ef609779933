/* tap_wire.h - the wire format between a tapc module and taprun.
 *
 * Shared by the module (runtime/transport.h includes it) and taprun: only
 * fixed-width fields, little surprises for a 32-bit reader, and a version
 * that both sides check.  A change of layout bumps TAP_TRANSPORT_VERSION.
 * runtime/transport.h says how the files and the session use it.
 *
 * Installed as PKGDATADIR/include/tap_wire.h, beside PKGDATADIR/runtime/:
 * the runtime includes it as "../include/tap_wire.h", which works in the
 * source tree and in an installed tapc alike.
 */
#ifndef TAP_WIRE_H
#define TAP_WIRE_H

#include <linux/types.h>

#define TAP_TRANSPORT_VERSION 3

/* Directory names are "tapc_" + the module name. */
#define TAP_DIR_PREFIX "tapc_"

/* ---- trace files ---- */

struct tap_rec_hdr {
	__u32 len;	/* payload bytes that follow the header, | TAP_REC_F_* */
	__u32 seq;	/* global program order, see above */
};

/* Flags in tap_rec_hdr.len; the payload length is len & TAP_REC_LEN_MASK.
 * A record with a flag is a mark in the output stream, numbered like the
 * output around it, so taprun acts on it exactly between the records
 * before and after it:
 *   TAP_REC_F_SWITCH  switch_file(): the records after it go to the next
 *                     output file (taprun -S); no payload.
 *   TAP_REC_F_ERROR   an error: print "ERROR: payload" on stderr once the
 *                     output before it is written, so the two stay in
 *                     order on a shared terminal.
 *   TAP_REC_F_WARNING likewise "WARNING: payload".
 * An error or warning that cannot be written as a mark (the buffer full)
 * comes as a TAP_MSG_ERROR or TAP_MSG_WARNING message instead. */
#define TAP_REC_F_SWITCH	0x80000000u
#define TAP_REC_F_ERROR		0x40000000u
#define TAP_REC_F_WARNING	0x20000000u
#define TAP_REC_F_MASK		0xe0000000u
#define TAP_REC_LEN_MASK	0x00ffffffu

/* ---- control messages ---- */

struct tap_msg_hdr {
	__u32 size;	/* whole message, header included */
	__u32 type;	/* enum tap_msg_type */
};

enum tap_msg_type {
	/* taprun -> module */
	TAP_MSG_START = 1,	/* struct tap_msg_start: run begin probes */
	TAP_MSG_STOP = 2,	/* header only: run end probes, then DONE */

	/* module -> taprun */
	TAP_MSG_HELLO = 16,	/* struct tap_msg_hello: first message read */
	TAP_MSG_STARTED = 17,	/* struct tap_msg_status: begin probes ran */
	TAP_MSG_ERROR = 18,	/* text: one error, print "ERROR: text" */
	TAP_MSG_WARNING = 19,	/* text: print "WARNING: text" */
	TAP_MSG_EXIT = 20,	/* header only: the script asked to end */
	TAP_MSG_DONE = 21,	/* struct tap_msg_done: end probes ran */
	TAP_MSG_SYSTEM = 22,	/* text: run it with /bin/sh -c */
};

/* Longest message in either direction, header included.  Text messages
 * are truncated to fit. */
#define TAP_MSG_MAX 2048
#define TAP_MSG_TEXT_MAX (TAP_MSG_MAX - (int)sizeof(struct tap_msg_hdr))

/* How the trace files are fed (tap_msg_hello.mode). */
enum tap_trace_mode {
	TAP_TRACE_RELAY = 1,	/* relay channels (debugfs) */
	TAP_TRACE_RING = 2,	/* the transport's own per-CPU rings */
};

struct tap_msg_hello {
	struct tap_msg_hdr hdr;
	__u32 version;		/* TAP_TRANSPORT_VERSION of the module */
	__u32 mode;		/* enum tap_trace_mode */
	__u32 nr_trace;		/* trace0 .. trace<nr_trace-1>; CPUs that
				   are not possible have no file */
	__u32 max_record;	/* longest payload of one record */
	__u64 buf_size;		/* bytes of trace buffer per CPU */
};

/* START flags. */
#define TAP_START_F_SUPPRESS_WARNINGS	0x1	/* -w: do not send warnings */

struct tap_msg_start {
	struct tap_msg_hdr hdr;
	__u32 version;		/* TAP_TRANSPORT_VERSION of taprun */
	__u32 flags;		/* TAP_START_F_* */
	__s32 target_pid;	/* -x PID or the -c command; 0 if none */
	__s32 remote_id;	/* --remote index, -1 if none */
	__s64 tz_gmtoff;	/* seconds west of UTC */
	char tz_name[16];	/* NUL-terminated */
	char remote_uri[128];	/* NUL-terminated, "" if none */
};

struct tap_msg_status {
	struct tap_msg_hdr hdr;
	__s32 status;		/* 0 or a negative errno */
	__u32 pad;
};

/* Why a probe hit was skipped (tap_msg_done.skipped[]). */
enum tap_skip_reason {
	TAP_SKIP_REENTRANT,	/* a probe fired inside a probe on that CPU */
	TAP_SKIP_LOCK,		/* a global's lock timed out */
	TAP_SKIP_STATE,		/* hit while starting or stopping */
	TAP_SKIP_KRETPROBE,	/* kretprobe instances ran out */
	TAP_SKIP_UPROBE,	/* uprobe/uretprobe instances ran out */
	TAP_SKIP_OTHER,
	TAP_SKIP_NR,
	TAP_SKIP_SLOTS = 8	/* room in the message; TAP_SKIP_NR <= this */
};

struct tap_msg_done {
	struct tap_msg_hdr hdr;
	__u32 nr_skip;		/* entries of skipped[] in use */
	__u32 pad;
	__u64 errors;		/* script errors, printed or suppressed */
	__u64 warnings;
	__u64 records;		/* trace records written */
	__u64 bytes;		/* payload bytes written */
	__u64 records_dropped;	/* prints lost: trace buffer full */
	__u64 msgs_dropped;	/* control messages lost: queue full */
	__u64 skipped[TAP_SKIP_SLOTS];
};

#endif /* TAP_WIRE_H */
