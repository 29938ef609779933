# Outlives its time limit (timeout.timeout): the harness kills it with
# SIGKILL, so the status is 137, and goes on with the next case.
echo started
sleeper 60000
echo not reached
