// make bench, mps-run section: the baseline the issue names, the same row
// sum with one OS thread per GPU thread (std::thread) and std::barrier for
// threadgroup_barrier and for the SIMD-group sum (a barrier of the whole
// group around a shared array: lenient towards the baseline), as the
// agents of the issue wrote it.  Prints the run's seconds.  `rowsum_threads
// ROWS` runs only the first ROWS rows (each row is a group: the time is
// linear in ROWS), so that make bench need not wait minutes for it.
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
	const int rows = argc > 1 ? std::atoi(argv[1]) : 1024, cols = 1024, group = 256;
	std::vector<float> x((size_t)rows * cols), out(rows > 0 ? rows : 1);
	for (size_t i = 0; i < x.size(); i++)
		x[i] = float(i % 7);
	auto t0 = std::chrono::steady_clock::now();
	for (int row = 0; row < rows; row++) {
		float lanes[256], partial[32];
		std::barrier<> bar(group);
		std::vector<std::thread> th;
		for (int lid = 0; lid < group; lid++)
			th.emplace_back([&, lid] {
				float acc = 0;
				for (int c = lid; c < cols; c += group)
					acc += x[(size_t)row * cols + c];
				lanes[lid] = acc;
				bar.arrive_and_wait(); // simd_sum: every lane's value there
				float s = 0;
				for (int l = lid / 32 * 32; l < lid / 32 * 32 + 32; l++)
					s += lanes[l];
				bar.arrive_and_wait();
				if (lid % 32 == 0)
					partial[lid / 32] = s;
				bar.arrive_and_wait();
				for (int k = (group / 32) / 2; k > 0; k /= 2) {
					if (lid < k)
						partial[lid] += partial[lid + k];
					bar.arrive_and_wait();
				}
				if (lid == 0)
					out[row] = partial[0];
			});
		for (auto &t : th)
			t.join();
	}
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	std::printf("%.3f\n", s);
	return out[0] == 0 ? 1 : 0;
}
