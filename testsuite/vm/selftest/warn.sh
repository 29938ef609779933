# The module raises WARN_ON_ONCE at load: the harness must see it in the
# kernel log and the taint (warn.kfail says a kernel problem is expected).
insmod tapc_selftest.ko warn=1 || exit 1
rmmod tapc_selftest
