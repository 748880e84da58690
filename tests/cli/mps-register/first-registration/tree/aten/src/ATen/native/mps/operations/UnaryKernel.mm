// host file with no stub yet
namespace at::native {
} // namespace at::native
