# A sleeping process gets its process.begin at the start of the script
# (its sleep is interrupted and goes on).
sleeper 3000 1 &
sleep 0.2
taprun -x $! existing.ko
echo "taprun: $?"
wait $!
echo "sleeper: $?"
