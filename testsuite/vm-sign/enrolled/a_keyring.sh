# Booted under OVMF with our certificate in UEFI's db (see build-modules)
# and module.sig_enforce=1.  Secure boot is off: the kernel reads db all
# the same (load_uefi_certs(), through UEFI's runtime services) into its
# platform keyring, which Debian's kernel also checks module signatures
# against.  The name the kernel gives our key names the user and host
# that made it, so it is shown as KEY.
echo "sig_enforce: $(cat /sys/module/module/parameters/sig_enforce)"
desc=$(cat keydesc)
grep -o 'secureboot: .*' /tmp/boot.log
grep -o 'integrity: Load.*X.509.*' /tmp/boot.log | sed "s/$desc/KEY/"
grep -o 'keyring *\.platform: .*' /proc/keys
grep -F " asymmetri $desc: " /proc/keys | sed "s/.* asymmetri .*: \(X509\.rsa\) .*/asymmetric KEY: \1/"
