package org.fairshare.oracle;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Small interface stand-ins (RMApp, RMAppAttempt, RMNode) built as dynamic proxies: the
 * scheduler calls only a handful of their many methods; those are answered by {@code answers},
 * every other call returns an empty value. Plus reflection helpers for Hadoop's private members.
 */
final class Stubs {
  private Stubs() {}

  interface Answer {
    Object apply(Object[] args);
  }

  static <T> T proxy(Class<T> type, Map<String, Answer> answers) {
    Object stub = Proxy.newProxyInstance(Stubs.class.getClassLoader(), new Class<?>[] {type},
        (self, method, args) -> {
          Answer answer = answers.get(method.getName());
          if (answer != null) {
            return answer.apply(args);
          }
          return emptyValue(self, method, args);
        });
    return type.cast(stub);
  }

  private static Object emptyValue(Object self, Method method, Object[] args) {
    String name = method.getName();
    if (name.equals("equals")) {
      return self == args[0];
    }
    if (name.equals("hashCode")) {
      return System.identityHashCode(self);
    }
    if (name.equals("toString")) {
      return "stub " + method.getDeclaringClass().getSimpleName();
    }
    Class<?> r = method.getReturnType();
    if (r == boolean.class) {
      return false;
    }
    if (r == int.class || r == short.class || r == byte.class) {
      return 0;
    }
    if (r == long.class) {
      return 0L;
    }
    if (r == float.class) {
      return 0f;
    }
    if (r == double.class) {
      return 0d;
    }
    if (r == List.class) {
      return Collections.emptyList();
    }
    if (r == Set.class) {
      return Collections.emptySet();
    }
    if (r == Map.class) {
      return Collections.emptyMap();
    }
    return null;
  }

  static Object field(Object owner, Class<?> declaring, String name) {
    try {
      Field f = declaring.getDeclaredField(name);
      f.setAccessible(true);
      return f.get(owner);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no field " + declaring.getName() + "." + name, e);
    }
  }

  static void setField(Object owner, Class<?> declaring, String name, Object value) {
    try {
      Field f = declaring.getDeclaredField(name);
      f.setAccessible(true);
      f.set(owner, value);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no field " + declaring.getName() + "." + name, e);
    }
  }

  static Method method(Class<?> declaring, String name, Class<?>... params) {
    try {
      Method m = declaring.getDeclaredMethod(name, params);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no method " + declaring.getName() + "." + name, e);
    }
  }
}
