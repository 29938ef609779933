# pyfuncs.py - the Python script of the usdt suite's python3.11 case.
# CPython 3.11 fires function__entry only when a frame is entered from C
# (python/cpython#98894: calls between Python functions are inlined in
# the interpreter loop), e.g. a generator's first next(); function__return
# fires for every return and yield.  So the functions are generators
# started by next(), and one plain function shows only its return.
def greet(name):
    yield "hello " + name


def add(a, b):
    yield a + b


class Box:
    def size(self):
        yield 3


def plain(x):
    return x * 2


next(greet("vm"))
next(add(1, 2))
next(Box().size())
plain(4)
list(greet("again"))
print("pyfuncs done")
