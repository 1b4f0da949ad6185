package dev.leasebox.console;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Debian's {@code chromium} and {@code chromium-driver}, driven headless through Selenium with the
 * installed driver (no download). Missing: the test fails under CI ({@code CI=true}, where
 * {@code .ci/run} installs both) and is skipped elsewhere, each time with what to install.
 */
final class HeadlessChromium {

    private static final String INSTALL = "install Debian's chromium and chromium-driver "
            + "(sudo apt-get install -y chromium chromium-driver; .ci/run does it under CI)";

    private HeadlessChromium() {
    }

    static ChromeDriver start() {
        Optional<Path> browser = firstExecutable(List.of("/usr/bin/chromium", "/usr/bin/chromium-browser"));
        Optional<Path> driver = firstExecutable(List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"));
        if (browser.isEmpty() || driver.isEmpty()) {
            String missing = (browser.isEmpty() ? "chromium " : "") + (driver.isEmpty() ? "chromedriver " : "") + "not found: "
                    + INSTALL;
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException(missing);
            }
            Assumptions.abort(missing);
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driver.get().toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser.get().toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1300", "--user-data-dir=" + tempProfile());
        return new ChromeDriver(service, options);
    }

    private static String tempProfile() {
        try {
            File dir = Files.createTempDirectory("leasebox-console-chromium").toFile();
            dir.deleteOnExit();
            return dir.getPath();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Optional<Path> firstExecutable(List<String> candidates) {
        return candidates.stream().map(Path::of).filter(Files::isExecutable).findFirst();
    }

    /** The figure the page shows in element {@code id}, thousands separators removed; -1 while it shows none. */
    static long number(ChromeDriver browser, String id) {
        String figure = text(browser, id).replace(",", "").replace("/s", "");
        return figure.matches("[0-9]+") ? Long.parseLong(figure) : -1;
    }

    /** The text of element {@code id}, read in one script: the page replaces its live part under Selenium's feet. */
    static String text(ChromeDriver browser, String id) {
        Object text = browser.executeScript("var e = document.getElementById(arguments[0]); return e ? e.innerText : '';", id);
        return String.valueOf(text);
    }
}
