# input.line/input.char read the standard input of taprun (input_line.stp).
# (exit() in the line probe of "quit\n" stops the run: the char probe of
# that newline, after it in the module, no longer runs: 28 characters)
printf 'hello world\nsecond line\nquit\n' | taprun input_line.ko
echo "taprun: $?"
# a partial last line never fires; the end of the input does not end
# the run (the time limit does)
printf 'one\ntwo' | taprun -T 1 input_line.ko
echo "taprun: $?"
