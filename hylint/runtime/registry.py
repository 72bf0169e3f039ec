"""``mxnet.registry``: name -> class registries with ``register``/``alias``/``create`` functions per base class."""
import json

_REGISTRY = {}


def get_registry(base_class):
    return dict(_REGISTRY.setdefault(base_class, {}))


def get_register_func(base_class, nickname):
    registry = _REGISTRY.setdefault(base_class, {})

    def register(klass, name=None):
        assert issubclass(klass, base_class), "Can only register subclass of %s" % base_class.__name__
        registry[(name or klass.__name__).lower()] = klass
        return klass
    register.__doc__ = "Register %s to the %s factory" % (nickname, nickname)
    return register


def get_alias_func(base_class, nickname):
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def decorate(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return decorate
    return alias


def get_create_func(base_class, nickname):
    registry = _REGISTRY.setdefault(base_class, {})

    def create(*args, **kwargs):
        name, args = (args[0], args[1:]) if args else (kwargs.pop(nickname), args)
        if isinstance(name, base_class):
            assert not args and not kwargs, "%s is already an instance. Additional arguments are invalid" % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, str), "%s must be of string type" % nickname
        if name.startswith("["):
            assert not args and not kwargs
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith("{"):
            assert not args and not kwargs
            return create(**json.loads(name))
        name = name.lower()
        assert name in registry, "%s is not registered. Please register with %s.register first" % (name, nickname)
        return registry[name](*args, **kwargs)
    return create
