/* sign.h - --sign-module (sign.c): the user's module signing key pair,
 * made with openssl on first use, and signing a built module the kernel's
 * way (an appended PKCS#7 signature, which modinfo shows as signer and
 * sig_hashalgo) with the target kbuild's own scripts/sign-file. */
#ifndef TAPC_SIGN_H
#define TAPC_SIGN_H

#include "tapc.h"

/* --sign-module[=DIR]: sign every module built or taken from the cache.
 * DIR NULL is the default folder, $XDG_DATA_HOME/tapc/keys (by default
 * ~/.local/share/tapc/keys). */
void sign_request(const char *dir);
bool sign_requested(void);

/* At the start of a run that builds (before any cache key is made): find
 * the target's sign-file, and the key pair in the folder, made with
 * openssl when missing (then printing, once, how to enroll its
 * certificate).  Nothing to do without --sign-module.  false after an
 * error message naming what is missing and the Debian package that
 * has it. */
bool sign_prepare(void);

/* What the module cache keys on when signing: the certificate's SHA-256
 * (hex), so signed and unsigned modules, and modules signed with
 * different keys, are kept apart.  NULL when not signing. */
const char *sign_identity(void);

/* Sign the module file KO in place for the current target: the digest its
 * configuration asks for (CONFIG_MODULE_SIG_HASH), the key pair of
 * sign_prepare(), the target kbuild's scripts/sign-file.  A module
 * already signed is left alone.  false after an error message.  Pass 4
 * calls it for every module it builds; a caller that copies modules
 * elsewhere (another host) gets them signed already. */
bool sign_module_file(const char *ko);

#endif
