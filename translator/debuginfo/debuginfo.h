/* debuginfo.h - what tapc knows of the target's code and data, and the
 * one way the probe families and the passes ask for it.
 *
 * Sources today (one file each):
 *   symbols.c      kallsyms and System.map: the kernel's and its modules'
 *                  function symbols, the module list; where the target's
 *                  headers are
 *   elf.c          a user-space object's ELF file: function symbols, PLT
 *                  entries, .note.stapsdt (SDT) markers
 *   programs.c     which file a program or library name stands for
 *   kheaders.c     which kernel header declares a struct
 *   tracepoints.c  the kernel's tracepoints and their prototypes (trace
 *                  headers, tracefs)
 *   kdebug.c       which debug information the target kernel and each of
 *                  its modules has (DWARF, else BTF, else none), found
 *                  once and build-id checked; the di_* calls below, which
 *                  answer from whichever reader that is
 *   dwarf.c        the kernel's and modules' DWARF, through libdwfl/libdw,
 *                  with an index cached by build-id
 *   btf.c          the kernel's and modules' BTF, through libbpf
 *   kimages.c      the target kernel's image and module files: where
 *                  they are, their build-ids and .BTF sections (with
 *                  elfsections.c, ELF sections, and unpack.c, xz, zstd
 *                  and gzip)
 *   headers.c      types of user-space headers, from the DWARF of a small
 *                  object gcc compiles from them
 * and ditype.c, a DiType as text and without its typedefs, for all of
 * them.
 * No family file reads these sources itself.
 *
 * Everything returned lives in the arena and is read once per run (names
 * are interned).  "Unknown" is NULL, never an empty list: a caller then
 * accepts names as written and leaves the point needs_debuginfo, rather
 * than pretend a name exists or does not.
 */
#ifndef TAPC_DEBUGINFO_H
#define TAPC_DEBUGINFO_H

#include "tapc.h"

/* ---- lists of names ---- */

/* A sorted, de-duplicated list of names. */
typedef struct NameList {
	const char **names;
	int len;
	const char *source;     /* where it came from, for messages */
} NameList;

bool namelist_has(const NameList *l, const char *name);
/* Fill l from names (sorted, duplicates dropped; names is taken over). */
void namelist_finish(NameList *l, Vec *names);

/* ---- the kernel and its modules: kallsyms, System.map (symbols.c) ---- */

/* Function symbols of the target kernel proper (no modules), or NULL when
 * no real symbol table is available for it.  Read once, on first use. */
const NameList *kernel_function_symbols(void);
/* Function symbols of a loaded module of the running target, or NULL. */
const NameList *module_function_symbols(const char *module);
/* Why kernel_function_symbols() (module NULL) or
 * module_function_symbols(module) is NULL, naming where tapc looked (the
 * same text for every module). */
const char *kernel_symbols_missing(const char *module);
/* Is `name` a data symbol (a variable) of the target kernel proper?  1
 * yes, 0 no, -1 when no symbol table of it can be read (kallsyms of the
 * running target, else a real System.map); *source (may be NULL) names
 * the table read. */
int kernel_data_symbol_known(const char *name, const char **source);
/* Module names of the target ('-' folded to '_'), or NULL when unknown. */
const NameList *kernel_module_names(void);
/* The symbols the kernel proper (module NULL) or a module exports
 * (EXPORT_SYMBOL*), from the target's Module.symvers; NULL when there is
 * none.  kernel_exported_missing() says where tapc looked. */
const NameList *kernel_exported_symbols(const char *module);
const char *kernel_exported_missing(void);
/* True when an out-of-tree module's file (a path to a .ko) can be read. */
bool kernel_module_file_readable(const char *path);
/* True when target_release() is the running kernel. */
bool target_is_running_kernel(void);

/* The path of the target's headers or build tree (for tracepoints), or
 * NULL.  Several folders may hold headers (Debian's -common split), so
 * this returns them in search order. */
const Vec *kernel_header_dirs(void);
/* The kernel tree's arch/ folder name for the target (arch/: kbuild's
 * ARCH). */
const char *kernel_arch_dir(void);

/* ---- kernel types: the header that declares a struct (kheaders.c) ---- */

/* The target kernel's header that defines struct NAME, as
 * "linux/binfmts.h" (NULL when none does). */
const char *kernel_struct_header(const char *name);
/* The struct a C type names ("const struct file *" -> "file"; NULL for
 * other types). */
const char *struct_name_of(const char *ctype);

/* ---- kernel tracepoints (tracepoints.c) ---- */

/* One TP_PROTO argument. */
typedef struct TraceArg {
	const char *name, *ctype;
} TraceArg;

typedef struct TraceEvent {
	const char *system, *name;   /* interned; system may be NULL */
	Vec args;                    /* TraceArg *; valid when have_args */
	bool have_args;
	bool odd_args;               /* an argument was left out of args
				      * (unnamed, array or function pointer):
				      * the prototype is not known */
	const char *header;          /* the header that declares it, or NULL */
} TraceEvent;

/* The target's tracepoints (TraceEvent *), from its trace headers and,
 * for the running kernel, tracefs; NULL when neither is there. */
const Vec *kernel_tracepoints(void);

/* ---- user-space programs and libraries (programs.c) ---- */

/* The absolute path of a program as process("NAME") means it: NAME with
 * a '/' is relative to the working directory, else it is looked up in
 * $PATH; a script stands for its #! interpreter.  NULL NAME means the
 * program of -c CMD (or of the -x PID).  NULL when not found. */
const char *program_path(const char *name);
/* The canonical path of p (symbolic links resolved) when it names a
 * regular file, else NULL. */
const char *regular_file(const char *p);
/* The regular files a glob ("/usr/bin/ls*") matches, canonical paths. */
Vec programs_matching(const char *glob);
/* The program a running process executes, or NULL. */
const char *process_program(int64_t pid);
/* Paths a .library("...") argument stands for: a path (glob) as it is,
 * a bare name (glob) in the system's library folders. */
Vec find_libraries(const char *pattern);

/* ---- user-space objects: ELF (elf.c) ---- */

/* One operand of an SDT marker, as its note describes it ("-4@%esi",
 * "8@-16(%rbp)", "8@foo(%rip)", "4@$42", "8@8(%rax,%rbx,8)"). */
typedef enum SdtArgKind {
	SDT_ARG_REG,            /* a register (or part of one) */
	SDT_ARG_MEM,            /* memory at base + index * scale + disp */
	SDT_ARG_CONST,          /* an immediate */
} SdtArgKind;

typedef struct SdtArg {
	const char *text;       /* the operand as the note has it */
	int size;               /* bytes read: 1, 2, 4 or 8 */
	bool is_signed;         /* a negative size in the note */
	SdtArgKind kind;
	int reg;                /* REG: DWARF register number; MEM: the base
				 * register's, -1 for none (pc-relative: the
				 * pc's, arch/'s pc_reg) */
	int reg_shift;          /* REG: bit offset of the part named (8 for
				 * %ah..%dh, else 0) */
	int index, scale;       /* MEM: index register (DWARF, -1 none), scale */
	int64_t value;          /* MEM: displacement; CONST: the value */
	const char *symbol;     /* MEM, CONST: a symbol in the displacement
				 * ("foo" of "foo+8(%rip)"), or NULL.  elf.c
				 * resolves it: reg is then the pc's and value the
				 * distance from the marker's pc to foo+8, so
				 * the run-time address is the marker's
				 * run-time address (regs->ip at the uprobe)
				 * plus value, wherever the object is loaded
				 * (a CONST with the pc's reg is that address) */
} SdtArg;

/* An SDT marker of .note.stapsdt. */
typedef struct SdtNote {
	const char *provider, *name;
	uint64_t pc;            /* the marker's address (file address) */
	uint64_t base;          /* .stapsdt.base: where the file has it (a
				 * note saying otherwise, of a prelinked
				 * file, has its pc and semaphore moved as
				 * far), or 0 as the note has it */
	uint64_t semaphore;     /* its semaphore's address, or 0 */
	const char *args;       /* argument descriptions: "8@%rdi -4@%esi" */
	int nargs;              /* how many ($arg1..$argN) */
	Vec argv;               /* SdtArg *, nargs of them when they all parse */
	const char *args_error; /* why an operand did not parse (naming it),
				 * or NULL */
} SdtNote;

/* A symbol of an object file, by address. */
typedef struct ObjSym {
	const char *name;
	uint64_t addr;          /* st_value (file address) */
	uint64_t size;
	bool func;              /* STT_FUNC / STT_GNU_IFUNC (else an object) */
	bool global;            /* STB_GLOBAL or STB_WEAK */
} ObjSym;

/* A PT_LOAD segment. */
typedef struct ObjSegment {
	uint64_t vaddr, memsz;  /* where it is mapped (file addresses) */
	uint64_t offset, filesz;/* where its bytes are in the file */
	bool exec;              /* PF_X */
} ObjSegment;

/* What an object file (a program or a library) holds. */
typedef struct ObjectFacts {
	const char *path;
	bool readable;          /* an ELF file we could read */
	bool has_symtab;        /* full symbol table (not stripped) */
	bool complete;          /* funcs is every function: a .symtab, here
				 * or in the separate debug file */
	bool dynamic_only;      /* stripped, no debug file: funcs is .dynsym,
				 * all a wildcard can be expanded against */
	const char *build_id;   /* hex, or NULL */
	const char *debuglink;  /* .gnu_debuglink file name, or NULL */
	const char *debug_file; /* the separate debug file read, or NULL */
	NameList funcs;         /* defined function symbols */
	NameList plt;           /* names of PLT-called functions */
	Vec sdt;                /* SdtNote * */
	bool pie;               /* ET_DYN (a PIE program or a library): its
				 * addresses move by the load bias */
	Vec syms;               /* ObjSym *: defined functions and data
				 * objects, sorted by address then name
				 * (.symtab, or the debug file's; else
				 * .dynsym) */
	Vec segments;           /* ObjSegment *, in file order */
	bool debug_info;        /* has DWARF (.debug_info), here or in the
				 * separate debug file */
	Vec plt_entries;        /* ObjSym *: each PLT entry (stub) by the
				 * function it calls, in .rela.plt order;
				 * addr is the stub's file address */
} ObjectFacts;

/* The facts of the object at path (read once; readable false when it is
 * not an ELF file tapc can read). */
const ObjectFacts *object_facts(const char *path);
/* The file offset of a file address (what uprobes are registered at):
 * false when no PT_LOAD segment holds vaddr in its file bytes. */
bool object_file_offset(const ObjectFacts *f, uint64_t vaddr, uint64_t *off);
/* The function symbol called name (the global one when several are), or
 * NULL. */
const ObjSym *object_symbol(const ObjectFacts *f, const char *name);
/* The symbol whose [addr, addr+size) holds addr (functions first), or
 * NULL. */
const ObjSym *object_symbol_at(const ObjectFacts *f, uint64_t addr);

/* ---- user-space objects: what the module carries (uobjects.c) ---- */

/* The shared libraries the object at path needs, directly or through
 * others (DT_NEEDED, found in its run path and the loader's folders), and
 * its interpreter: canonical paths, each once, path itself left out.  What
 * --ldd adds. */
Vec object_needed(const char *path);

/* One row of an object's unwind table: from pc (a file address) up to
 * the next row's pc, how to find the caller's frame. */
typedef enum UnwindKind {
	UNW_NONE,               /* no CFI here: follow the frame pointer */
	UNW_SP,                 /* CFA = sp + cfa_off */
	UNW_BP,                 /* CFA = frame pointer + cfa_off */
	UNW_PLT,                /* a PLT entry: its CFA rule (x86-64's) */
	UNW_OUTERMOST,          /* the return address is undefined (_start) */
} UnwindKind;

typedef struct UnwindRow {
	uint64_t pc;
	int32_t cfa_off;
	int16_t fp_off;         /* the caller's frame pointer is at CFA +
				 * fp_off; 0: it is unchanged */
	int8_t ra_off;          /* the return address is at CFA + ra_off;
				 * 0: still in its register (arm64's x30) */
	uint8_t kind;           /* UnwindKind */
} UnwindRow;

/* The object's .eh_frame as UnwindRow *, sorted by pc (consecutive rows
 * with the same rule merged; gaps between FDEs are UNW_NONE rows).  Empty
 * without .eh_frame_hdr or CFI. */
Vec object_unwind_rows(const char *path);

/* ---- the shape of DWARF and BTF answers ----
 *
 * The readers (libdwfl for DWARF: kernel, modules and, later, user
 * objects with their separate debug files; libbpf for the kernel's BTF)
 * answer in these types, so the families are written once against them.
 * Addresses are as the module's file has them; add the module's bias for
 * where it is loaded.
 */

typedef enum DiModuleKind {
	DI_KERNEL,              /* vmlinux */
	DI_KMODULE,             /* a kernel module (.ko) */
	DI_USER,                /* a program or shared library */
} DiModuleKind;

/* A module: one loaded or loadable image and its files. */
typedef struct DiModule {
	DiModuleKind kind;
	const char *name;       /* "kernel", "ext4", "/usr/bin/ls" */
	const char *path;       /* its main (ELF) file, or NULL */
	const char *debug_path; /* where its debug information is (the file
				 * itself, a separate .debug file, vmlinux),
				 * or NULL */
	const char *build_id;   /* hex, or NULL when it has none */
	uint64_t low, high;     /* address range [low, high) */
	int64_t bias;           /* load address minus file address */
} DiModule;

typedef struct DiType DiType;

/* A place in the source. */
typedef struct DiSrcLoc {
	const char *file;       /* NULL when unknown */
	int line;               /* 0 when unknown */
} DiSrcLoc;

/* A function, or one inlined instance of it. */
typedef struct DiFunction {
	const char *name;
	const DiModule *module;
	uint64_t entry_pc;      /* first instruction; for an inlined instance
				 * where it begins in its caller */
	uint64_t low_pc, high_pc;   /* the range holding entry_pc (a
				 * function gcc split keeps its ".cold"
				 * part elsewhere) */
	DiSrcLoc decl;          /* declaration (decl_file, decl_line) */
	bool external;          /* visible outside its compilation unit */
	bool inlined;           /* an inline instance, not an out-of-line copy */
	const DiType *ret;      /* return type; NULL for void or unknown */
	Vec params;             /* DiVariable *, in order */
} DiFunction;

/* Where a variable's value is at one pc. */
typedef enum DiLocKind {
	DI_LOC_NONE,            /* optimised out at this pc */
	DI_LOC_REG,             /* in register `reg` */
	DI_LOC_MEM_REG,         /* in memory at register `reg` + offset */
	DI_LOC_ADDR,            /* in memory at a fixed address */
	DI_LOC_CONST,           /* a constant value */
	DI_LOC_EXPR,            /* a DWARF expression tapc must evaluate */
} DiLocKind;

/* One operation of a DI_LOC_EXPR: op is the DW_OP_* number of <dwarf.h>,
 * n1 and n2 its operands as libdw gives them.  DW_OP_call_frame_cfa is
 * left to the caller, with di_cfa_at(); DW_OP_entry_value's operand
 * expression follows it as its own ops (n1 of them). */
typedef struct DiOp {
	uint8_t op;
	uint64_t n1, n2;
} DiOp;

typedef struct DiLocation {
	DiLocKind kind;
	int reg;                /* DWARF register number */
	int64_t offset;         /* DI_LOC_MEM_REG */
	uint64_t addr;          /* DI_LOC_ADDR */
	int64_t value;          /* DI_LOC_CONST */
	const DiOp *expr;       /* DI_LOC_EXPR: the operations */
	size_t expr_len;        /* how many */
} DiLocation;

/* A parameter or variable in scope at some pc (or a global). */
typedef struct DiVariable {
	const char *name;
	const DiType *type;
	DiSrcLoc decl;
	bool is_param;
	int block;              /* 0: a parameter or local of the function
				 * itself; n > 0: a local of the nth lexical
				 * block inward (holding the pc) */
	DiLocation loc;         /* at the pc it was asked for */
} DiVariable;

/* Type kinds, as both DWARF tags and BTF kinds have them. */
typedef enum DiTypeKind {
	DI_TYPE_VOID, DI_TYPE_INT, DI_TYPE_FLOAT, DI_TYPE_ENUM,
	DI_TYPE_POINTER, DI_TYPE_ARRAY, DI_TYPE_STRUCT, DI_TYPE_UNION,
	DI_TYPE_TYPEDEF, DI_TYPE_CONST, DI_TYPE_VOLATILE, DI_TYPE_RESTRICT,
	DI_TYPE_FUNC,           /* a function type (prototype) */
	DI_TYPE_FWD,            /* a struct or union declared, not defined */
} DiTypeKind;

/* An enumerator of an enum (value as the type's is_signed reads it). */
typedef struct DiEnumerator {
	const char *name;
	int64_t value;
} DiEnumerator;

/* A member of a struct or union. */
typedef struct DiMember {
	const char *name;       /* NULL for an anonymous struct/union */
	const DiType *type;
	uint64_t bit_offset;    /* from the start of the enclosing type */
	int bit_size;           /* bitfield width, 0 for a whole member */
} DiMember;

struct DiType {
	DiTypeKind kind;
	const char *name;       /* "task_struct", "u32", NULL when anonymous */
	uint64_t size;          /* bytes; 0 when incomplete */
	bool is_signed;         /* DI_TYPE_INT, DI_TYPE_ENUM */
	const DiType *target;   /* pointer, array element, typedef,
				 * qualifier, function return type */
	int64_t count;          /* array elements; -1 when flexible */
	Vec members;            /* DiMember * (struct, union) or, for
				 * functions, parameter types (DiType *) */
	Vec enumerators;        /* DiEnumerator * (enum), in order */
	DiSrcLoc decl;          /* where it is declared (DWARF only) */
};

/* ---- debug information: the calls (kdebug.c) ----
 *
 * `module` is NULL for the kernel proper, else a module name as the
 * script wrote it ("ext4"; '-' and '_' alike), or an absolute path
 * ("/usr/bin/python3.11", "/lib/x86_64-linux-gnu/libc.so.6"): a
 * user-space program or library (DiModule.kind DI_USER), whose DWARF is
 * in the file itself or in its separate debug file (by build-id under
 * /usr/lib/debug/.build-id/, or .gnu_debuglink), and which has no BTF.
 * Its addresses are the file's (ObjectFacts.pie: moved by the load
 * bias at run time).  Every call answers from
 * the module's DWARF when it has DWARF, else from its BTF; di_source()
 * says which.  Vecs are returned by value and owned by the caller; what
 * they point to lives in the arena for the whole run. */

typedef enum DiSource {
	DI_SRC_NONE,            /* neither: symbols only */
	DI_SRC_DWARF,
	DI_SRC_BTF,
} DiSource;

/* Which debug information module has (looked up once, DWARF first:
 * $SYSTEMTAP_DEBUGINFO_PATH when set, else /usr/lib/debug/boot/
 * vmlinux-RELEASE, /usr/lib/debug/lib/modules/RELEASE/..., the build
 * tree's vmlinux; each checked against the target's image by build-id). */
DiSource di_source(const char *module);
/* The module's files and address range, or NULL for DI_SRC_NONE. */
const DiModule *di_module(const char *module);
/* Why di_source(module) is not DWARF, for messages: where tapc looked,
 * or the two files whose build-ids differ. */
const char *di_why_no_dwarf(const char *module);
/* Why it is DI_SRC_NONE (neither DWARF nor BTF), for messages. */
const char *di_why_none(const char *module);

/* Functions of module whose name matches func_glob (arg_glob_match
 * syntax) and, when file_glob is not NULL, whose declaration's file
 * matches it (a glob against the path as DWARF has it, relative to the
 * kernel tree, and against its last components: "read_write.c" and
 * "fs/read_write.c" both match).  Out-of-line definitions (inlined
 * false), and with want_inline also each inlined instance (inlined true:
 * one DiFunction per place it was inlined).  Sorted by name, then
 * address; each (name, address) once.  BTF: out-of-line only, no decl. */
Vec di_functions(const char *module, const char *func_glob,
		 const char *file_glob, bool want_inline);

/* The out-of-line function of module whose code holds pc (the one an
 * inlined instance or a source line is in), or NULL.  DWARF only: a
 * lookup of pc's compilation unit, not a table of every function. */
const DiFunction *di_function_at(const char *module, uint64_t pc);

/* The address where a probe on f's entry goes: after the prologue, where
 * its parameters are in their homes (DWARF: the line table's prologue
 * end; BTF and inlined instances: entry_pc). */
uint64_t di_probe_pc(const DiFunction *f);

/* A source line and the address its code begins at. */
typedef struct DiLine {
	DiSrcLoc src;
	uint64_t pc;
	const DiFunction *func; /* the function it is in (innermost out-of-
				 * line one), or NULL */
} DiLine;

/* The lines of f (all of its file's lines it has code for) in
 * [lo, hi], one DiLine per line (its lowest address, as a statement
 * probe puts it).  DWARF only (empty for BTF). */
Vec di_function_lines(const DiFunction *f, int lo, int hi);
/* The lines of module's compilation units whose file matches file_glob,
 * in [lo, hi]; with nearest, a line without code stands for the next one
 * that has code.  DWARF only. */
Vec di_source_lines(const char *module, const char *file_glob, int lo,
		    int hi, bool nearest);

/* A row of a line table: code from addr (to the next row's addr) is from
 * file:line; file NULL and line 0 where there is no code (the end of a
 * sequence). */
typedef struct DiLineRow {
	uint64_t addr;
	const char *file;       /* as di_functions names files */
	int line;
} DiLineRow;

/* The line table of module's code in [lo, hi) (the module's addresses),
 * or of all of its code when hi is 0: DiLineRow *, by address, one per
 * address, none repeating the one before; with hi, a last row at hi
 * ends it.  DWARF only (empty otherwise). */
Vec di_line_rows(const char *module, uint64_t lo, uint64_t hi);

/* The labels (C `name:`) of f whose name matches glob.  DWARF only. */
typedef struct DiLabel {
	const char *name;
	uint64_t pc;
	DiSrcLoc src;
	const DiFunction *func;
} DiLabel;
Vec di_function_labels(const DiFunction *f, const char *glob);

/* The call sites in f (DW_TAG_call_site / GNU_call_site) of functions
 * whose name matches glob; with depth > 1 also the callees' callees, down
 * to depth levels.  DWARF only. */
typedef struct DiCallSite {
	const DiFunction *caller;
	const DiFunction *callee;
	uint64_t pc;            /* the call instruction's return address
				 * (DW_AT_call_return_pc) */
} DiCallSite;
Vec di_function_callees(const DiFunction *f, const char *glob, int depth);

/* The variables in scope at pc inside f: its parameters, then the locals
 * of every lexical block that contains pc, innermost last (a later one
 * shadows an earlier one of the same name), each with its location at pc
 * (DI_LOC_NONE when it is optimised out there).  BTF: the parameters,
 * located by the calling convention at entry (DI_LOC_REG). */
Vec di_variables_at(const DiFunction *f, uint64_t pc);

/* Where the canonical frame address is at pc (for DW_OP_call_frame_cfa
 * and DW_OP_fbreg through it), from the module's CFI: kind DI_LOC_REG
 * with an offset is "register + offset"; false when unknown. */
bool di_cfa_at(const DiModule *m, uint64_t pc, DiLocation *out);

/* A type by name: "struct task_struct", "union x", "enum y", or a
 * typedef/base name ("u32", "int").  module NULL: the kernel, then every
 * module the run has used.  NULL when not found. */
const DiType *di_find_type(const char *module, const char *name);
/* A global variable, for @var("name@file.c"): file_glob NULL means any
 * compilation unit (external ones first).  NULL when not found. */
const DiVariable *di_find_global(const char *module, const char *name,
				 const char *file_glob);
/* A function symbol's address in the ELF symbol table of the file the
 * DWARF came from, in the DWARF's addresses (0 without DWARF, or when it
 * has no such symbol): where a function begins, which on arm64 is 8
 * bytes before its DWARF low_pc (two patchable NOPs for ftrace). */
uint64_t di_symbol_addr(const char *module, const char *name);
/* The same for a symbol of any type (a variable, a linker-script mark
 * such as __per_cpu_start). */
uint64_t di_any_symbol_addr(const char *module, const char *name);
/* Where out-of-line function f begins for a kprobe: its symbol's address
 * when that is up to 16 bytes before its DWARF low_pc (arm64's ftrace
 * NOPs come before the low_pc; a kretprobe must be at the symbol), else
 * its low_pc. */
uint64_t di_function_start(const char *module, const DiFunction *f);
/* Where the function symbol holding pc begins, from the ELF symbol table
 * of the file the DWARF came from: 0 without DWARF or such a symbol. */
uint64_t di_symbol_start(const char *module, uint64_t pc);
/* Copy len bytes of the code at address addr (the DWARF's addresses)
 * from the file the DWARF came from into buf: false without DWARF or
 * when the file does not hold them (a debug file without the code). */
bool di_read_code(const char *module, uint64_t addr, void *buf, size_t len);

/* ---- types (ditype.c) ---- */

/* A type as stap prints it in -L listings: "struct file*", "char*",
 * "size_t", "unsigned int", "char const*", "struct iovec[]" (an array
 * without its count, as stap shows it). */
const char *di_type_text(const DiType *t);
/* The type behind typedefs and qualifiers. */
const DiType *di_type_strip(const DiType *t);

/* ---- user-space header types: @cast(p, "T", "<sys/un.h>") (headers.c) ----
 *
 * The headers ("<sys/un.h>" or "<sys/socket.h><sys/un.h>") are compiled
 * with gcc -g into an object cached per header set (keyed by each
 * header's path and content), whose DWARF gives the types. */

/* The type NAME ("struct sockaddr_un", "union x", "enum y", a typedef or
 * base name) as the headers declare it; NULL when they do not.  NULL with
 * *why set when the headers cannot be used: a malformed list, or gcc's
 * first error line when they do not compile. */
const DiType *di_header_type(const char *headers, const char *name,
			     const char **why);

#endif
