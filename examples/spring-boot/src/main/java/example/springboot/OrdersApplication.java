package example.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A service that takes orders: {@link OrderService#placeOrder} writes the order and its {@code order-placed}
 * outbox entry in one transaction; the Leasebox starter drains the outbox to the HTTP endpoint in
 * {@code leasebox.provider}, leasing rows from Redis.
 */
@SpringBootApplication
@EnableConfigurationProperties(ExampleProperties.class)
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
