#include "solvers/problem/plan_inputs.hpp"

namespace meshplan {

const LinkMatrix& PlanInputs::links(Transport t) const {
  switch (t) {
    case Transport::kRdma:
      return rdma;
    case Transport::kNetwork:
      return network;
    case Transport::kTcp:
      return tcp;
    case Transport::kThunderbolt:
      return thunderbolt;
    case Transport::kAny:
      return any;
  }
  return any;
}

}  // namespace meshplan
