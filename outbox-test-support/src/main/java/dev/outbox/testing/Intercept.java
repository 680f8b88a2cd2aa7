package dev.outbox.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.jspecify.annotations.Nullable;

/**
 * An object seen through a JDK proxy, for tests that count, slow down or refuse what the code under
 * test asks of a {@code DataSource}, a {@code Connection} or a statement: {@link #of} wraps
 * {@code target} so that a {@link Handler} sees each call first, and {@link Call#proceed} forwards it
 * to the target, throwing what the target threw as it was.
 *
 * <pre>{@code
 * DataSource counting = Intercept.of(DataSource.class, real, call -> {
 *     if (call.name().equals("getConnection")) {
 *         connections.incrementAndGet();
 *     }
 *     return call.proceed();
 * });
 * }</pre>
 */
public final class Intercept {

    private Intercept() {}

    /** Decides what one call of the proxy does: usually something of its own, then {@link Call#proceed}. */
    @FunctionalInterface
    public interface Handler<T> {
        @Nullable
        Object handle(Call<T> call) throws Throwable;
    }

    /** One call of a proxy made by {@link #of}. */
    @SuppressWarnings("ArrayRecordComponent") // the arguments as reflection passes them; a call is not compared
    public record Call<T>(T target, Method method, @Nullable Object @Nullable [] args) {

        /** The method's name. */
        public String name() {
            return method.getName();
        }

        /** Argument {@code index} of the call, or null when it has none there. */
        public @Nullable Object arg(int index) {
            return args == null || index >= args.length ? null : args[index];
        }

        /** Makes the call on the target; what the target throws is thrown as it was. */
        public @Nullable Object proceed() throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    /** {@code target} as a {@code type} whose every call goes to {@code handler} first. */
    public static <T> T of(Class<T> type, T target, Handler<T> handler) {
        return type.cast(Proxy.newProxyInstance(
                type.getClassLoader(),
                new Class<?>[] {type},
                (proxy, method, args) -> handler.handle(new Call<>(target, method, args))));
    }
}
