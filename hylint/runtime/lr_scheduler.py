"""``mxnet.lr_scheduler``: learning-rate schedules (``scheduler(num_update) -> lr``) with optional warm-up."""
import math

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler", "CosineScheduler"]


class LRScheduler:
    """Base: a warm-up from ``warmup_begin_lr`` to ``base_lr`` over ``warmup_steps`` ('linear' or 'constant')."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        assert isinstance(warmup_steps, int)
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if warmup_begin_lr > base_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr")
        if warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError("Supports only linear and constant modes of warmup")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        assert num_update < self.warmup_steps
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        span = self.warmup_final_lr - self.warmup_begin_lr
        return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)

    def __call__(self, num_update):
        raise NotImplementedError("must override this")


class FactorScheduler(LRScheduler):
    """Multiplies the rate by ``factor`` every ``step`` updates, never below ``stop_factor_lr``."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step, self.factor, self.stop_factor_lr = step, factor, stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiplies the rate by ``factor`` once past each update count in the increasing list ``step``."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(step, list) and len(step) >= 1
        if any(b <= a for a, b in zip(step, step[1:])):
            raise ValueError("Schedule step must be an increasing integer list")
        if any(s < 1 for s in step):
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step, self.factor = step, factor
        self.cur_step_ind = 0
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
        return self.base_lr


class _Annealing(LRScheduler):
    """From ``base_lr`` (after warm-up) to ``final_lr`` at ``max_update``, along ``_shape(progress)``."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(max_update, int)
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        self.base_lr_orig = base_lr
        self.max_update, self.final_lr = max_update, final_lr
        self.max_steps = max_update - warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            progress = float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * self._shape(progress)
        return self.base_lr


class PolyScheduler(_Annealing):
    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr

    def _shape(self, progress):
        return pow(1 - progress, self.power)


class CosineScheduler(_Annealing):
    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)

    @staticmethod
    def _shape(progress):
        return (1 + math.cos(math.pi * progress)) / 2
