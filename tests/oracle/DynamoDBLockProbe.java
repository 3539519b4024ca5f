// The AWS DynamoDB lock client (com.amazonaws:dynamodb-lock-client), configured as Apache Hudi's
// DynamoDBBasedLockProvider configures it: lease = the lock wait time, a background heartbeat every
// lease / 3, acquireLock with an additional wait. Run as a single source file (java -cp <jars> ...);
// arguments: endpoint, lock table, partition key, lease ms. One command per stdin line, one answer
// line each: "acquire <additional wait ms>" -> "acquired <ms>" | "not-granted <ms>" | "error <what>";
// "release" -> "released true|false"; "quit".

import com.amazonaws.services.dynamodbv2.AcquireLockOptions;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClientOptions;
import com.amazonaws.services.dynamodbv2.LockItem;
import com.amazonaws.services.dynamodbv2.model.LockNotGrantedException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

public class DynamoDBLockProbe {
  public static void main(String[] args) throws Exception {
    long lease = Long.parseLong(args[3]);
    DynamoDbClient dynamoDb = DynamoDbClient.builder()
        .endpointOverride(URI.create(args[0]))
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")))
        .build();
    AmazonDynamoDBLockClient client = new AmazonDynamoDBLockClient(
        AmazonDynamoDBLockClientOptions.builder(dynamoDb, args[1])
            .withTimeUnit(TimeUnit.MILLISECONDS)
            .withLeaseDuration(lease)
            .withHeartbeatPeriod(lease / 3)
            .withCreateHeartbeatBackgroundThread(true)
            .build());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    LockItem held = null;
    System.out.println("ready");
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] command = line.trim().split(" ");
      long started = System.currentTimeMillis();
      try {
        if (command[0].equals("acquire")) {
          try {
            held = client.acquireLock(AcquireLockOptions.builder(args[2])
                .withAdditionalTimeToWaitForLock(Long.parseLong(command[1]))
                .withTimeUnit(TimeUnit.MILLISECONDS)
                .build());
            System.out.println("acquired " + (System.currentTimeMillis() - started));
          } catch (LockNotGrantedException e) {
            System.out.println("not-granted " + (System.currentTimeMillis() - started));
          }
        } else if (command[0].equals("release")) {
          System.out.println("released " + (held != null && client.releaseLock(held)));
          held = null;
        } else {
          break;
        }
      } catch (Exception e) {
        System.out.println("error " + e.toString().replace('\n', ' '));
      }
      System.out.flush();
    }
    client.close();
  }
}
