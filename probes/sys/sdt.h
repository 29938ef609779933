/* <sys/sdt.h> - statically defined tracing (SDT) markers in user-space
 * programs and libraries, as written by tapc's probes/ kit.
 *
 * A marker costs one `nop` where it sits and an ELF note describing it,
 * so it is nearly free while nothing traces the program.  The note
 * follows the ".note.stapsdt" ABI that SystemTap defined and that tapc,
 * SystemTap, bpftrace, gdb and perf read:
 *
 *   section .note.stapsdt, note type 3, owner "stapsdt"; the note's
 *   description holds three addresses (of the pointer's size), then three
 *   NUL-terminated strings:
 *     - the marker's address: the nop a tracer puts its breakpoint on;
 *     - the link-time address of the symbol _.stapsdt.base, one byte in
 *       the section .stapsdt.base (a tool compares it with where that
 *       section really is, to learn how far a prelinked file moved);
 *     - the address of the marker's semaphore, or 0 for none;
 *     - the provider's name, the marker's name;
 *     - its operands, blank-separated, each "SIZE@OPERAND": SIZE is the
 *       argument's size in bytes, negative for a signed type, and OPERAND
 *       is where the value is at the nop, in the assembler's syntax
 *       ("-4@%esi", "8@-16(%rbp)", "8@counter(%rip)", "4@$42").
 *
 *   A semaphore is an unsigned short in the section ".probes".  A tracer
 *   adds one to it for each probe it attaches to the marker (the kernel
 *   does it for uprobes given a reference-counter offset) and takes one
 *   off when it detaches, so code can skip the work of preparing a
 *   marker's arguments while nobody listens.  `dtrace -h` writes headers
 *   whose PROVIDER_NAME_ENABLED() macros test them and `dtrace -G`
 *   writes the object that defines them.
 *
 * The compiler writes the operands: each argument is an asm operand with
 * the constraint "nor" (an immediate, a memory reference or a register,
 * wherever the value already is, so reading it costs no code; "nr" on
 * aarch64, see _TAPSDT_CONSTRAINT) printed by
 * "%[name]", and its size is an "n" constant printed by "%n[name]", which
 * prints a constant negated: a signed argument passes its size, an
 * unsigned one minus its size.
 *
 * Use:
 *   STAP_PROBE(provider, name)                       no arguments
 *   STAP_PROBE1(provider, name, a1) ... STAP_PROBE12(provider, name, a1, ... a12)
 *   STAP_PROBEV(provider, name, ...)                 0 to 12 arguments
 *   DTRACE_PROBE(provider, name), DTRACE_PROBE1 .. DTRACE_PROBE12: the same
 * Arguments are integers or pointers (arrays are passed as pointers).
 * With _SDT_HAS_SEMAPHORES defined (dtrace -h headers do it) each marker
 * names its semaphore, provider_name_semaphore, which must be declared.
 * This header works in C and C++ with GCC and Clang on x86-64 (and on
 * other targets whose assemblers take the same directives).
 */
#ifndef _SYS_SDT_H
#define _SYS_SDT_H 1
#define _TAPC_SYS_SDT_H 1       /* this implementation */

#define _SDT_NOTE_NAME "stapsdt"
#define _SDT_NOTE_TYPE 3

#if defined(__LP64__) || (defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8)
#define _TAPSDT_ADDR ".8byte"
#else
#define _TAPSDT_ADDR ".4byte"
#endif

#define _TAPSDT_STR(x) #x
#define _TAPSDT_XSTR(x) _TAPSDT_STR(x)

/* ---- the size and signedness of an argument, as constants ---- */

/* An array or a pointer is an address. */
#define _TAPSDT_IS_ADDR(x) \
	(__builtin_classify_type(x) == 5 || __builtin_classify_type(x) == 14)

#ifdef __cplusplus
/* Signed integer types, whatever their qualifiers. */
template <typename T> struct __tapsdt_signed { static const bool value = false; };
template <typename T> struct __tapsdt_signed<const T> : __tapsdt_signed<T> {};
template <typename T> struct __tapsdt_signed<volatile T> : __tapsdt_signed<T> {};
template <typename T> struct __tapsdt_signed<const volatile T> : __tapsdt_signed<T> {};
template <typename T> struct __tapsdt_signed<T &> : __tapsdt_signed<T> {};
template <> struct __tapsdt_signed<char> { static const bool value = (char)-1 < 0; };
template <> struct __tapsdt_signed<signed char> { static const bool value = true; };
template <> struct __tapsdt_signed<short> { static const bool value = true; };
template <> struct __tapsdt_signed<int> { static const bool value = true; };
template <> struct __tapsdt_signed<long> { static const bool value = true; };
#pragma GCC diagnostic push     /* C++98 has no long long: no warning */
#pragma GCC diagnostic ignored "-Wlong-long"
template <> struct __tapsdt_signed<long long> { static const bool value = true; };
#pragma GCC diagnostic pop
#define _TAPSDT_SIGNED(x) (__tapsdt_signed<__typeof__(x)>::value)
#else
#define _TAPSDT_IS(x, T) __builtin_types_compatible_p(__typeof__(x), T)
/* (__extension__: long long is C99's, and pedantic C90 says so) */
#define _TAPSDT_SIGNED(x) __extension__ \
	(_TAPSDT_IS(x, signed char) || _TAPSDT_IS(x, short) || _TAPSDT_IS(x, int) || \
	 _TAPSDT_IS(x, long) || _TAPSDT_IS(x, long long) || \
	 (_TAPSDT_IS(x, char) && (char)-1 < 0))
#endif

#define _TAPSDT_SIZE(x) (_TAPSDT_IS_ADDR(x) ? (int)sizeof(void *) : (int)sizeof(x))
/* What "%n" prints as SIZE: minus this. */
#define _TAPSDT_NSIZE(x) (_TAPSDT_SIGNED(x) && !_TAPSDT_IS_ADDR(x) ? _TAPSDT_SIZE(x) : -_TAPSDT_SIZE(x))

/* ---- operands ---- */

/* On aarch64 gcc prints a global's memory operand as "[x0,
 * #:lo12:.LANCHOR2]": the low bits of an assembler-local anchor that no
 * symbol table keeps, so no reader can find the address.  There the
 * value goes in a register (or stays a constant) instead. */
#if defined(__aarch64__)
#define _TAPSDT_CONSTRAINT "nr"
#else
#define _TAPSDT_CONSTRAINT "nor"
#endif
#define _TAPSDT_OP(n, x) [__tapsdt_s##n] "n" (_TAPSDT_NSIZE(x)), [__tapsdt_a##n] _TAPSDT_CONSTRAINT (x)
#define _TAPSDT_F(n) "%n[__tapsdt_s" #n "]@%[__tapsdt_a" #n "]"

#define _TAPSDT_F1 _TAPSDT_F(1)
#define _TAPSDT_F2 _TAPSDT_F1 " " _TAPSDT_F(2)
#define _TAPSDT_F3 _TAPSDT_F2 " " _TAPSDT_F(3)
#define _TAPSDT_F4 _TAPSDT_F3 " " _TAPSDT_F(4)
#define _TAPSDT_F5 _TAPSDT_F4 " " _TAPSDT_F(5)
#define _TAPSDT_F6 _TAPSDT_F5 " " _TAPSDT_F(6)
#define _TAPSDT_F7 _TAPSDT_F6 " " _TAPSDT_F(7)
#define _TAPSDT_F8 _TAPSDT_F7 " " _TAPSDT_F(8)
#define _TAPSDT_F9 _TAPSDT_F8 " " _TAPSDT_F(9)
#define _TAPSDT_F10 _TAPSDT_F9 " " _TAPSDT_F(10)
#define _TAPSDT_F11 _TAPSDT_F10 " " _TAPSDT_F(11)
#define _TAPSDT_F12 _TAPSDT_F11 " " _TAPSDT_F(12)

/* ---- the note ---- */

#ifdef _SDT_HAS_SEMAPHORES
#define _TAPSDT_SEM(provider, name) _TAPSDT_ADDR " " #provider "_" #name "_semaphore\n"
#else
#define _TAPSDT_SEM(provider, name) _TAPSDT_ADDR " 0\n"
#endif

/* The nop, the note (in the group of the code around it, "?", so that a
 * marker in an inline function's discarded copy goes with it) and, once
 * per object, _.stapsdt.base. */
#define _TAPSDT_ASM(provider, name, args) \
	"990: nop\n" \
	".pushsection .note.stapsdt,\"?\",\"note\"\n" \
	".balign 4\n" \
	".4byte 992f-991f, 994f-993f, " _TAPSDT_XSTR(_SDT_NOTE_TYPE) "\n" \
	"991: .asciz \"" _SDT_NOTE_NAME "\"\n" \
	"992: .balign 4\n" \
	"993: " _TAPSDT_ADDR " 990b\n" \
	_TAPSDT_ADDR " _.stapsdt.base\n" \
	_TAPSDT_SEM(provider, name) \
	".asciz \"" #provider "\"\n" \
	".asciz \"" #name "\"\n" \
	".asciz \"" args "\"\n" \
	"994: .balign 4\n" \
	".popsection\n" \
	".ifndef _.stapsdt.base\n" \
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	".weak _.stapsdt.base\n" \
	".hidden _.stapsdt.base\n" \
	"_.stapsdt.base: .space 1\n" \
	".size _.stapsdt.base, 1\n" \
	".popsection\n" \
	".endif\n"

/* ---- the markers ---- */

#define STAP_PROBE(provider, name) \
	__asm__ __volatile__ (_TAPSDT_ASM(provider, name, ""))
#define STAP_PROBE1(p, n, a1) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F1) :: _TAPSDT_OP(1, a1))
#define STAP_PROBE2(p, n, a1, a2) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F2) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2))
#define STAP_PROBE3(p, n, a1, a2, a3) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F3) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3))
#define STAP_PROBE4(p, n, a1, a2, a3, a4) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F4) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4))
#define STAP_PROBE5(p, n, a1, a2, a3, a4, a5) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F5) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5))
#define STAP_PROBE6(p, n, a1, a2, a3, a4, a5, a6) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F6) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6))
#define STAP_PROBE7(p, n, a1, a2, a3, a4, a5, a6, a7) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F7) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6), _TAPSDT_OP(7, a7))
#define STAP_PROBE8(p, n, a1, a2, a3, a4, a5, a6, a7, a8) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F8) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6), _TAPSDT_OP(7, a7), _TAPSDT_OP(8, a8))
#define STAP_PROBE9(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F9) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6), _TAPSDT_OP(7, a7), _TAPSDT_OP(8, a8), \
		      _TAPSDT_OP(9, a9))
#define STAP_PROBE10(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F10) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6), _TAPSDT_OP(7, a7), _TAPSDT_OP(8, a8), \
		      _TAPSDT_OP(9, a9), _TAPSDT_OP(10, a10))
#define STAP_PROBE11(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F11) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6), _TAPSDT_OP(7, a7), _TAPSDT_OP(8, a8), \
		      _TAPSDT_OP(9, a9), _TAPSDT_OP(10, a10), _TAPSDT_OP(11, a11))
#define STAP_PROBE12(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
	__asm__ __volatile__ (_TAPSDT_ASM(p, n, _TAPSDT_F12) :: _TAPSDT_OP(1, a1), _TAPSDT_OP(2, a2), \
		      _TAPSDT_OP(3, a3), _TAPSDT_OP(4, a4), _TAPSDT_OP(5, a5), \
		      _TAPSDT_OP(6, a6), _TAPSDT_OP(7, a7), _TAPSDT_OP(8, a8), \
		      _TAPSDT_OP(9, a9), _TAPSDT_OP(10, a10), _TAPSDT_OP(11, a11), \
		      _TAPSDT_OP(12, a12))

/* STAP_PROBEV(provider, name, args...): the count picks the macro (where
 * the language has variadic macros: C99, C++11). */
#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || \
    (defined(__cplusplus) && __cplusplus >= 201103L) || defined(SDT_USE_VARIADIC)
/* The count of __VA_ARGS__ less two (provider and name). */
#define _TAPSDT_NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, N, ...) N
#define _TAPSDT_COUNT(...) \
	_TAPSDT_NTH(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0)
#define _TAPSDT_CAT(a, b) a##b
#define _TAPSDT_XCAT(a, b) _TAPSDT_CAT(a, b)
#define _TAPSDT_PICK0(p, n) STAP_PROBE(p, n)
#define _TAPSDT_PICK1 STAP_PROBE1
#define _TAPSDT_PICK2 STAP_PROBE2
#define _TAPSDT_PICK3 STAP_PROBE3
#define _TAPSDT_PICK4 STAP_PROBE4
#define _TAPSDT_PICK5 STAP_PROBE5
#define _TAPSDT_PICK6 STAP_PROBE6
#define _TAPSDT_PICK7 STAP_PROBE7
#define _TAPSDT_PICK8 STAP_PROBE8
#define _TAPSDT_PICK9 STAP_PROBE9
#define _TAPSDT_PICK10 STAP_PROBE10
#define _TAPSDT_PICK11 STAP_PROBE11
#define _TAPSDT_PICK12 STAP_PROBE12
#define STAP_PROBEV(...) \
	_TAPSDT_XCAT(_TAPSDT_PICK, _TAPSDT_COUNT(__VA_ARGS__))(__VA_ARGS__)
#endif

#define DTRACE_PROBE(p, n) STAP_PROBE(p, n)
#define DTRACE_PROBE1(p, n, a1) STAP_PROBE1(p, n, a1)
#define DTRACE_PROBE2(p, n, a1, a2) STAP_PROBE2(p, n, a1, a2)
#define DTRACE_PROBE3(p, n, a1, a2, a3) STAP_PROBE3(p, n, a1, a2, a3)
#define DTRACE_PROBE4(p, n, a1, a2, a3, a4) STAP_PROBE4(p, n, a1, a2, a3, a4)
#define DTRACE_PROBE5(p, n, a1, a2, a3, a4, a5) STAP_PROBE5(p, n, a1, a2, a3, a4, a5)
#define DTRACE_PROBE6(p, n, a1, a2, a3, a4, a5, a6) \
	STAP_PROBE6(p, n, a1, a2, a3, a4, a5, a6)
#define DTRACE_PROBE7(p, n, a1, a2, a3, a4, a5, a6, a7) \
	STAP_PROBE7(p, n, a1, a2, a3, a4, a5, a6, a7)
#define DTRACE_PROBE8(p, n, a1, a2, a3, a4, a5, a6, a7, a8) \
	STAP_PROBE8(p, n, a1, a2, a3, a4, a5, a6, a7, a8)
#define DTRACE_PROBE9(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
	STAP_PROBE9(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9)
#define DTRACE_PROBE10(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
	STAP_PROBE10(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)
#define DTRACE_PROBE11(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
	STAP_PROBE11(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)
#define DTRACE_PROBE12(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
	STAP_PROBE12(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)

#endif /* _SYS_SDT_H */
