! consumer.f90 -- solve a 1-based 3x3 SPD system through an installed spk.
program consumer_fortran
  use, intrinsic :: iso_c_binding
  use spk
  implicit none
  integer(c_int) :: rowptr(4) = [1, 3, 6, 8], colind(7) = [1, 2, 1, 2, 3, 2, 3], st
  real(c_double) :: val(7) = [4d0, -1d0, -1d0, 4d0, -1d0, -1d0, 4d0], b(3) = [3d0, 2d0, 3d0], x(3)
  type(c_ptr) :: ctx, a, s
  type(spk_options) :: o
  type(spk_result) :: r
  st = spk_context_create(ctx, SPK_DEVICE_HOST)
  if (st == SPK_OK) st = spk_matrix_from_csr(ctx, 3, 3, rowptr, colind, val, a)
  call spk_options_default(o)
  if (st == SPK_OK) st = spk_solver_create(ctx, a, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, o, s)
  x = 0
  if (st == SPK_OK) st = spk_solve(s, b, x, r)
  if (st /= SPK_OK .or. maxval(abs(x - 1)) > 1d-8) then
     print *, "consumer_fortran: ", spk_status_name(st), " ", spk_last_error(ctx), x
     stop 1
  end if
  print '(a,a,a,i0,a)', "consumer_fortran: spk ", spk_version(), " solved it in ", r%iterations, " iterations"
  call spk_solver_destroy(s)
  call spk_matrix_destroy(a)
  call spk_context_destroy(ctx)
end program consumer_fortran
