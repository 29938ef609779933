# Output and messages on one stream, as on a terminal: each error and
# warning follows the output its probe printed before it.
taprun order.ko >both 2>&1
echo "status $?"
cat both
exit 0
