// throws.cc - the usdt suite's C++ program: three exceptions thrown and
// caught, which libstdc++'s throw and catch markers report.
#include <cstdio>
#include <stdexcept>

struct MyError {
	int code;
};

int main()
{
	int caught = 0;
	try {
		throw std::runtime_error("boom");
	} catch (const std::exception &) {
		caught++;
	}
	try {
		throw MyError{7};
	} catch (const MyError &e) {
		caught += e.code;
	}
	try {
		throw 42;
	} catch (int) {
		caught++;
	}
	std::printf("throws: caught %d\n", caught);
	return 0;
}
