// The scaleref torch operators' schemas, shared by the library that registers
// them under `scaleref` (the reference on CPU tensors, the CUDA kernels on
// CUDA tensors: ops.cpp, cuda_ops.cpp) and the one that registers the same
// schemas under `scaleref_emu` (the CUDA kernels through the CPU emulator on
// CPU tensors: emu_ops.cpp).
//
// Each layer has a forward op returning (y, saved) and a backward op taking
// saved back: `saved` is what the backend's backward reads of the forward,
// opaque to the caller (the kernels' row statistics, e.g. 1 / RMS per row; the
// reference keeps none and recomputes its forward in double). A parameter the
// layer does not have is None, and so is its gradient. Rescalers and the
// initializer write W in place and return nothing (a mutable operator whose
// result does not alias its input, which torch.compile can functionalize).
#pragma once

#include <torch/library.h>

namespace scaleref::torch_ops {

inline void define_schemas(torch::Library& m) {
  m.def("rmsnorm(Tensor x, Tensor? gamma, float eps) -> (Tensor, Tensor[])");
  m.def(
      "rmsnorm_backward(Tensor dy, Tensor x, Tensor? gamma, Tensor[] saved, float eps)"
      " -> (Tensor, Tensor)");
  m.def("layernorm(Tensor x, Tensor? gamma, Tensor? beta, float eps) -> (Tensor, Tensor[])");
  m.def(
      "layernorm_backward(Tensor dy, Tensor x, Tensor? gamma, Tensor? beta, Tensor[] saved,"
      " float eps) -> (Tensor, Tensor, Tensor)");
  m.def("dyt(Tensor x, Tensor alpha, Tensor? gamma, Tensor? beta) -> Tensor");
  m.def(
      "dyt_backward(Tensor dy, Tensor x, Tensor alpha, Tensor? gamma, Tensor? beta)"
      " -> (Tensor, Tensor, Tensor, Tensor)");
  m.def(
      "seednorm(Tensor x, Tensor? alpha, Tensor? beta, Tensor? gamma, float eps, str sigma,"
      " int heads, str alpha_form, str beta_form) -> (Tensor, Tensor[])");
  m.def(
      "seednorm_backward(Tensor dy, Tensor x, Tensor? alpha, Tensor? beta, Tensor? gamma,"
      " Tensor[] saved, float eps, str sigma, int heads, str alpha_form, str beta_form)"
      " -> (Tensor, Tensor, Tensor, Tensor)");
  m.def(
      "adaseednorm(Tensor x, Tensor? alpha, Tensor? beta, Tensor gamma_c, Tensor eta_c, float eps,"
      " str sigma, int heads, str alpha_form, str beta_form) -> (Tensor, Tensor[])");
  m.def(
      "adaseednorm_backward(Tensor dy, Tensor x, Tensor? alpha, Tensor? beta, Tensor gamma_c,"
      " Tensor eta_c, Tensor[] saved, float eps, str sigma, int heads, str alpha_form,"
      " str beta_form) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("sdd(Tensor x, Tensor V, Tensor alpha, float eps) -> (Tensor, Tensor[])");
  m.def(
      "sdd_backward(Tensor dy, Tensor x, Tensor V, Tensor alpha, Tensor[] saved, float eps)"
      " -> (Tensor, Tensor, Tensor)");
  m.def(
      "scalevec(Tensor x, Tensor W, Tensor? g, Tensor? a, Tensor? r, Tensor? u, str strategy,"
      " float eps, int heads) -> (Tensor, Tensor[])");
  m.def(
      "scalevec_backward(Tensor dy, Tensor x, Tensor W, Tensor? g, Tensor? a, Tensor? r,"
      " Tensor? u, Tensor[] saved, str strategy, float eps, int heads)"
      " -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def(
      "rescale_(Tensor(a!) W, str rule, float? sigma=None, str? std=None, float? threshold=None)"
      " -> ()");
  m.def(
      "init_(Tensor(a!) W, str method, str role, int layer=1, int seed=0, int tensor=0,"
      " float? sigma=None, int? n_layers=None, float? alpha=None, float? gamma=None) -> ()");
}

}  // namespace scaleref::torch_ops
