package com.example.boot.orders;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

/** Sends the confirmation mail; here it keeps what it sent, for the tests to read. */
@Component
public class Mailer {

    private final List<String> sent = new CopyOnWriteArrayList<>();

    public void sendConfirmation(OrderPlaced order) {
        sent.add(order.orderId());
    }

    public List<String> sent() {
        return List.copyOf(sent);
    }
}
