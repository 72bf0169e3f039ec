"""The rewrite of an ``mx.autograd.Function`` call into a registered custom operator (HY809's and HY810's fix
where the straight-through rewrite does not apply).

A graph cannot hold an ``autograd.Function``, but it can hold ``F.Custom``: a Python ``CustomOp`` whose
``forward``/``backward`` run on NDArrays. The fix inserts one helper into the module, written here once, and
rewrites each call ``fn(x, ...)`` to ``_as_custom_op(F, fn, x, ...)``. The helper registers the Function's
class as an operator (once per class) that, on every forward, makes a fresh copy of the Function (so the
single-use rule of an instance no longer matters), runs its ``forward`` and keeps it for its ``backward``.
Measured on MXNet 1.9.1 (tests/repairs/test_custom_op_mxnet.py, and the six gluoncv2 isqrtcovresnet models):
- the copy carries the instance's own attributes (``self.n = n`` of ``__init__``) through the operator's
  string attributes as ``repr``, read back with ``ast.literal_eval``: they must be Python literals;
- the output shape comes from a dry run of ``forward`` on ones, in a thread of its own: run on the calling
  thread, the nested NDArray calls overwrite the shape MXNet is inferring ("Shape inconsistent, Provided =
  [2,256,196], inferred shape=[2,256,14,14]");
- each input goes through ``F.reshape_like(F.reshape(x, (-1,)), x)`` first: with oneDNN (the pip build) a
  CustomOp whose input comes from a oneDNN operator otherwise reads its internal layout (nan on
  isqrtcovresnet18 eagerly; mxnet-truth's shape-free.md: inf, nan or values off by 1e5 on the six models,
  and ``identity``, ``abs`` or ``Cast`` are not enough). With the round trip the six models' eager and
  hybridized outputs equal the original's bit for bit; it passes the gradient unchanged.

Used by HY809 (rules/autograd_function_in_hybrid.py) and HY810 (rules/traced_autograd_function.py), where
straight_through.py does not apply. Rests on (MXNet 1.9.1): mxnet-truth shape-free.md, the custom-operator
section (an op type per Function, attributes as strings, the oneDNN layout barrier);
tests/repairs/test_custom_op_mxnet.py (gradients, other shapes, two calls in one recording) and the
numerics of fixtures/HY809, HY809_2, HY809_3 and HY810.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import PendingEdit, PendingFix, replace
from hylint.repairs.straight_through import function_method
from hylint.syntax.walk import walk

HELPER = "_as_custom_op"
REGISTER = "_function_custom_op"
FIX_TITLE = (f"Call the Function as a registered custom operator: `{HELPER}(F, fn, x)` (a helper added to the module); "
             "assumes its attributes are Python literals, its output has its input's dtype and shape from shapes alone")

# Module-level code added once; `{i}` is one indentation level of the module, `{n}` its newline.
_HELPER_CODE = '''\
def {register}(function_class):
{i}"""Registers an mx.autograd.Function class as a custom operator (once); returns its op_type.

{i}Added by hylint (HY809): each forward runs a fresh copy of the Function, kept for its backward."""
{i}import ast
{i}import inspect
{i}import threading
{i}import mxnet

{i}op_type = "%s.%s" % (function_class.__module__, function_class.__qualname__)
{i}if op_type in mxnet.operator.get_all_registered_operators():
{i}{i}return op_type
{i}own = set(vars(mxnet.autograd.Function()))
{i}arguments = ["data%d" % i for i in range(len(inspect.signature(function_class.forward).parameters) - 1)]
{i}shapes = {{}}

{i}def fresh(state):
{i}{i}function = function_class.__new__(function_class)
{i}{i}mxnet.autograd.Function.__init__(function)
{i}{i}function.__dict__.update(state)
{i}{i}return function

{i}class FunctionOp(mxnet.operator.CustomOp):
{i}{i}def __init__(self, state):
{i}{i}{i}super().__init__()
{i}{i}{i}self.state = state
{i}{i}{i}self.function = None

{i}{i}def forward(self, is_train, req, in_data, out_data, aux):
{i}{i}{i}self.function = fresh(self.state)
{i}{i}{i}with mxnet.autograd.train_mode() if is_train else mxnet.autograd.predict_mode():
{i}{i}{i}{i}out = self.function.forward(*in_data)
{i}{i}{i}if out.dtype != out_data[0].dtype:
{i}{i}{i}{i}raise TypeError("%s returned %s for %s inputs" % (op_type, out.dtype, out_data[0].dtype))
{i}{i}{i}self.assign(out_data[0], req[0], out)

{i}{i}def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
{i}{i}{i}grads = self.function.backward(*out_grad)
{i}{i}{i}for i, grad in enumerate(grads if isinstance(grads, (list, tuple)) else [grads]):
{i}{i}{i}{i}self.assign(in_grad[i], req[i], grad)

{i}class FunctionOpProp(mxnet.operator.CustomOpProp):
{i}{i}def __init__(self, state="{{}}"):
{i}{i}{i}super().__init__(need_top_grad=True)
{i}{i}{i}self.state = {{k: v for k, v in ast.literal_eval(state).items() if k not in own}}

{i}{i}def list_arguments(self):
{i}{i}{i}return arguments

{i}{i}def infer_shape(self, in_shape):
{i}{i}{i}key = (repr(sorted(self.state.items())), tuple(tuple(s) for s in in_shape))
{i}{i}{i}if key not in shapes:  # a dry run; on this thread it would overwrite the shapes being inferred
{i}{i}{i}{i}result = []

{i}{i}{i}{i}def dry_run():
{i}{i}{i}{i}{i}try:
{i}{i}{i}{i}{i}{i}result.append(fresh(self.state).forward(*[mxnet.nd.ones(s) for s in in_shape]).shape)
{i}{i}{i}{i}{i}except Exception as error:  # noqa: BLE001 -- raised again on the calling thread
{i}{i}{i}{i}{i}{i}result.append(error)

{i}{i}{i}{i}thread = threading.Thread(target=dry_run)
{i}{i}{i}{i}thread.start()
{i}{i}{i}{i}thread.join()
{i}{i}{i}{i}if isinstance(result[0], Exception):
{i}{i}{i}{i}{i}raise result[0]
{i}{i}{i}{i}shapes[key] = result[0]
{i}{i}{i}return in_shape, [shapes[key]], []

{i}{i}def create_operator(self, ctx, in_shapes, in_dtypes):
{i}{i}{i}return FunctionOp(self.state)

{i}mxnet.operator.register(op_type)(FunctionOpProp)
{i}return op_type


def {helper}(F, function, *inputs):
{i}"""Calls the mx.autograd.Function instance `function` on `inputs` as a custom operator, in a graph too.

{i}Added by hylint (HY809). Its attributes must be Python literals; the reshape round trip gives the operator
{i}its inputs in the default layout (with oneDNN it would read an internal one)."""
{i}import ast

{i}state = repr(dict(vars(function)))
{i}try:
{i}{i}ast.literal_eval(state)
{i}except (ValueError, SyntaxError):
{i}{i}raise TypeError("%s cannot be a custom operator: its attributes must be Python literals, not %s"
{i}{i}{i}{i}{i}{i}% (type(function).__name__, state)) from None
{i}inputs = [F.reshape_like(F.reshape(x, (-1,)), x) for x in inputs]
{i}return F.Custom(*inputs, op_type={register}(type(function)), state=state)
'''


def helper_code(module: cst.Module) -> str:
    """The helper functions, in the module's indentation and newlines."""
    code = _HELPER_CODE.format(i=module.default_indent, register=REGISTER, helper=HELPER)
    return code.replace("\n", module.default_newline)


def _top_level_names(module: cst.Module) -> Dict[str, cst.CSTNode]:
    """Top-level definitions by name (functions, classes, assignments, imports)."""
    names: Dict[str, cst.CSTNode] = {}

    class _Bound(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.setdefault(node.value, node)

    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.setdefault(stmt.name.value, stmt)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        walk(target.target, _Bound())
                elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        if isinstance(bound, cst.Name):
                            names.setdefault(bound.value, bound)
    return names


def _single_output(forward: cst.FunctionDef) -> bool:
    """Every ``return`` of ``forward`` (outside nested functions) returns one value, not a tuple or list."""
    returns: List[cst.Return] = []

    class _Returns(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            returns.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    walk(forward.body, _Returns())
    return bool(returns) and all(r.value is not None and not isinstance(r.value, (cst.Tuple, cst.List))
                                 for r in returns)


def _positional_arity(fn: cst.FunctionDef) -> Optional[int]:
    """The number of arguments after ``self`` of a method with plain positional parameters only."""
    params = fn.params
    if isinstance(params.star_arg, cst.Param) or params.kwonly_params or params.star_kwarg is not None \
            or params.posonly_params or any(p.default is not None for p in params.params) or not params.params:
        return None
    return len(params.params) - 1


def custom_op(call: cst.Call, cls: str, functions: Dict[str, cst.ClassDef], ctx) -> Optional[PendingFix]:
    """The rewrite of a Function call ``fn(x, ...)`` to ``_as_custom_op(F, fn, x, ...)`` plus the helper (when
    the module lacks it), or None when its conditions are not all proven."""
    if ctx.f_name is None or ctx.function is None:
        return None
    forward = function_method(functions[cls], functions, "forward")
    backward = function_method(functions[cls], functions, "backward")
    if forward is None or backward is None or forward.decorators or not _single_output(forward):
        return None
    arity = _positional_arity(forward)
    if arity is None or arity != len(call.args) or \
            any(a.keyword is not None or a.star for a in call.args):
        return None
    names = _top_level_names(ctx.module)
    for name in (HELPER, REGISTER):
        if name in names and not isinstance(names[name], cst.FunctionDef):
            return None  # the module binds the helper's name to something else
    if ctx.f_name == HELPER or any(p.name.value in (HELPER, REGISTER) for p in ctx.function.params.params):
        return None
    ws = cst.SimpleWhitespace(" ")
    args = [cst.Arg(cst.Name(ctx.f_name), comma=cst.Comma(whitespace_after=ws)),
            cst.Arg(call.func, comma=cst.Comma(whitespace_after=ws) if call.args else cst.MaybeSentinel.DEFAULT)]
    args += [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(call.args) - 1 else a
             for i, a in enumerate(call.args)]
    edits = [replace(call, call.with_changes(func=cst.Name(HELPER), args=args))]
    if HELPER not in names:
        edits += _insert_helper(functions, ctx.module)
    return PendingFix(Applicability.UNSAFE, FIX_TITLE, edits)


def _insert_helper(functions: Dict[str, cst.ClassDef], module: cst.Module) -> List[PendingEdit]:
    """The helper, inserted after the module's last Function class. Every call's fix carries this same edit,
    so that any subset of them (verify applies the fixes a run exercises, in one pass) defines the helper;
    apply_fixes makes an edit that two fixes share once."""
    body = list(module.body)
    last = max(i for i, stmt in enumerate(body) if isinstance(stmt, cst.ClassDef) and stmt.name.value in functions
               and functions[stmt.name.value] is stmt)
    nl = module.default_newline
    code = helper_code(module).rstrip(nl)
    if last + 1 < len(body):
        return [PendingEdit(body[last + 1], code + nl * 3, mode="insert_before")]
    return [PendingEdit(body[last], nl * 3 + code, mode="insert_after")]
