/* i18n.h - message translation through gettext when NLS is enabled. */
#ifndef TAPC_I18N_H
#define TAPC_I18N_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#if ENABLE_NLS
#include <libintl.h>
#else
#define gettext(s) ((const char *)(s))
#define textdomain(d) ((const char *)(d))
#define bindtextdomain(d, dir) ((const char *)(d))
#endif

#endif
