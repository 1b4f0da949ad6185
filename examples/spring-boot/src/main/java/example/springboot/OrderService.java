package example.springboot;

import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.spring.TransactionalOutbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.nio.charset.StandardCharsets;

/** Places orders: the order row and its outbox entry commit together, or neither does. */
@Service
public class OrderService {

    private final JdbcTemplate jdbc;
    private final TransactionalOutbox outbox;
    private final String ordersTable;

    public OrderService(JdbcTemplate jdbc, TransactionalOutbox outbox, ExampleProperties properties) {
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.ordersTable = TableName.parse(properties.ordersTable()).qualified();
    }

    /**
     * Stores the order and enqueues {@code order-placed} for it, keyed by customer so that one customer's
     * events keep their order under partition leases. A non-positive amount is refused after both writes,
     * and the rollback takes both back.
     */
    @Transactional
    public void placeOrder(String orderId, String customer, long amountCents) {
        jdbc.update("INSERT INTO " + ordersTable + " (id, customer, amount_cents) VALUES (?, ?, ?)", orderId, customer, amountCents);
        String json = "{\"order\":\"" + orderId + "\",\"customer\":\"" + customer + "\",\"amountCents\":" + amountCents + "}";
        outbox.enqueue(OutboxMessage.of("order-placed", json.getBytes(StandardCharsets.UTF_8))
                .withIdempotencyKey("order-" + orderId)
                .withPartitionKey(customer)
                .withHeader("content-type", "application/json"));
        if (amountCents <= 0) {
            throw new IllegalArgumentException("order " + orderId + ": the amount must be positive, was " + amountCents);
        }
    }
}
