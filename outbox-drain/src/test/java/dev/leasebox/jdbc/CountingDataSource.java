package dev.leasebox.jdbc;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A data source that counts what goes through it: connections borrowed, and statement executions
 * ({@code execute}, {@code executeQuery}, {@code executeUpdate}, {@code executeBatch}, …), each of
 * which is one round trip to the database. It keeps the first SQL line of each execution, so that a
 * failing assertion shows what ran. {@code unwrap}/{@code isWrapperFor} reach the wrapped data
 * source, so {@link JdbcDataSources#describe} still names its URL.
 */
final class CountingDataSource {

    private final DataSource target;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<String> executed = new CopyOnWriteArrayList<>();

    CountingDataSource(DataSource target) {
        this.target = target;
    }

    /** The counting view of the wrapped data source. */
    DataSource dataSource() {
        return proxy(DataSource.class, (method, args) -> {
            Object result = call(target, method, args);
            if (method.getName().equals("getConnection")) {
                connections.incrementAndGet();
                return connection((Connection) result);
            }
            return result;
        });
    }

    int connections() {
        return connections.get();
    }

    int executions() {
        return executed.size();
    }

    /** The first SQL line of each execution since the last {@link #reset()}. */
    List<String> executed() {
        return List.copyOf(executed);
    }

    void reset() {
        connections.set(0);
        executed.clear();
    }

    private Connection connection(Connection real) {
        return proxy(Connection.class, (method, args) -> {
            Object result = call(real, method, args);
            String name = method.getName();
            if (name.equals("prepareCall")) {
                return statement(CallableStatement.class, (CallableStatement) result, (String) args[0]);
            }
            if (name.equals("prepareStatement")) {
                return statement(PreparedStatement.class, (PreparedStatement) result, (String) args[0]);
            }
            if (name.equals("createStatement")) {
                return statement(Statement.class, (Statement) result, null);
            }
            return result;
        });
    }

    private <S extends Statement> S statement(Class<S> type, S real, String preparedSql) {
        return proxy(type, (method, args) -> {
            if (method.getName().startsWith("execute")) {
                executed.add(firstLine(args != null && args.length > 0 && args[0] instanceof String sql ? sql : preparedSql));
            }
            return call(real, method, args);
        });
    }

    @FunctionalInterface
    private interface Call {
        Object invoke(Method method, Object[] args) throws Throwable;
    }

    /** A proxy of {@code type} whose unwrap/isWrapperFor go to {@link #target}, the rest to {@code call}. */
    private <T> T proxy(Class<T> type, Call call) {
        InvocationHandler handler = (self, method, args) -> {
            String name = method.getName();
            if (type == DataSource.class && (name.equals("unwrap") || name.equals("isWrapperFor"))) {
                return call(target, method, args);
            }
            return call.invoke(method, args);
        };
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static String firstLine(String sql) {
        if (sql == null) {
            return "(batch of a plain statement)";
        }
        for (String line : sql.split("\n")) {
            String trimmed = line.trim();
            if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
                return trimmed;
            }
        }
        return sql.trim();
    }
}
