/*
 * tap_string.h - script strings: fixed buffers of MAXSTRINGLEN bytes,
 * always NUL-terminated, silently truncated at MAXSTRINGLEN - 1 bytes the
 * way stap truncates (no error).  Comparison operators are plain strcmp()
 * (bytes compared as unsigned char).
 *
 * (Named tap_string.h, not string.h, so it never shadows <string.h>.)
 */
#ifndef TAP_STRING_H
#define TAP_STRING_H

size_t tap_strlcpy(char *dst, const char *src, size_t size);
void tap_str_assign(char *dst, const char *src);
void tap_str_append(char *dst, const char *src);
void tap_str_concat(char *dst, const char *a, const char *b);
void tap_long_to_str(char *dst, int64_t v);
int64_t tap_strtol(const char *s, int base, const char **end);
void tap_substr(char *dst, const char *src, int64_t start, int64_t len);
size_t tap_escape_char(char *dst, unsigned char ch);

#endif /* TAP_STRING_H */
